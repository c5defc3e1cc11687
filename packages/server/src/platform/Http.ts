import { HttpApiBuilder } from "@effect/platform"
import { Effect, Option } from "effect"
import { Database } from "../db/Sql"
import { Migrated } from "../db/Migrations"
import { LoreApi } from "../http/Api"
import { LORE_VERSION } from "./Version"
import { asCaller } from "../domain/Principal"
import { AuditTrail } from "./Audit"
import { EmbeddingStatus } from "./EmbeddingStatus"

export const PlatformHttp = HttpApiBuilder.group(LoreApi, "platform", (handlers) =>
  Effect.gen(function* () {
    const database = yield* Database
    const { level } = yield* Migrated
    const embeddings = yield* EmbeddingStatus
    const startedAt = Date.now()
    return handlers.handle("getHealth", () =>
      Effect.map(embeddings.active, (active) => ({
        status: "ok",
        version: LORE_VERSION,
        database: database.kind,
        databaseVersion: database.serverVersion,
        // Vector search runs only with an embedding model; the store says how it would run.
        vectorSearch: Option.isSome(active) ? (database.vector ? "pgvector" : "exact-cosine") : "off",
        vectorStore: database.vector ? "pgvector" : "exact-cosine",
        embeddingModel: Option.match(active, { onNone: () => "none", onSome: (info) => `${info.model} (${info.dimensions} dimensions)` }),
        // Whether the model comes from LORE_EMBEDDING_* (ENVIRONMENT) or an administrator's route (ADMIN).
        embeddingSource: Option.match(active, { onNone: () => "none", onSome: (info) => info.source }),
        migrationLevel: String(level),
        uptimeSeconds: String(Math.floor((Date.now() - startedAt) / 1000))
      }))
    )
  })
)

export const AuditHttp = HttpApiBuilder.group(LoreApi, "adminAudit", (handlers) =>
  Effect.map(AuditTrail, (trail) =>
    handlers.handle("listAuditEvents", ({ urlParams }) => asCaller((me) => trail.list(me, urlParams)))
  )
)
