import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { Database } from "../db/Sql"
import { migrationLevel } from "../db/Migrations"
import { LoreApi } from "../http/Api"
import { LORE_VERSION } from "./Version"

export const PlatformHttp = HttpApiBuilder.group(LoreApi, "platform", (handlers) =>
  Effect.gen(function* () {
    const database = yield* Database
    const startedAt = Date.now()
    return handlers.handle("getHealth", () =>
      Effect.map(Effect.orDie(migrationLevel), (level) => ({
        status: "ok",
        version: LORE_VERSION,
        database: database.kind,
        databaseVersion: database.serverVersion,
        vectorSearch: database.vector ? "pgvector" : "exact-cosine",
        migrationLevel: String(level),
        uptimeSeconds: String(Math.floor((Date.now() - startedAt) / 1000))
      }))
    )
  })
)
