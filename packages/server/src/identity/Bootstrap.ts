import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Settings } from "../Config"
import { isTokenShaped, Tokens } from "./Tokens"

export interface FirstStartInfo {
  readonly adminEmail: string
  readonly token: string
  readonly tokenFile: string
}

/** Set when this start created the organization: what to tell the operator, once. */
export class FirstStart extends Context.Tag("lore/FirstStart")<FirstStart, Option.Option<FirstStartInfo>>() {}

/**
 * On an empty database: the organization, a department, a knowledge space that the whole organization
 * may view, the admin user and the bootstrap token (LORE_BOOTSTRAP_TOKEN when given). Under an advisory
 * lock, so several processes starting together create one organization.
 */
export const BootstrapLive = Layer.effect(
  FirstStart,
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const settings = yield* Settings
    const tokens = yield* Tokens
    const chosen = Option.map(settings.bootstrapToken, Redacted.value)
    if (Option.isSome(chosen) && !isTokenShaped(chosen.value)) {
      return yield* Effect.dieMessage("LORE_BOOTSTRAP_TOKEN must look like any Lore token: lore_pat_ followed by at least 20 of A-Z a-z 0-9 _ -")
    }
    const created = yield* sql.withTransaction(
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(7291001)`
        const existing = yield* sql`SELECT id FROM organizations LIMIT 1`
        if (existing.length > 0) return Option.none()
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Lore') RETURNING id`
        const [department] = yield* sql<{ id: string }>`
          INSERT INTO departments (organization_id, name) VALUES (${org!.id}, 'General') RETURNING id`
        const [admin] = yield* sql<{ id: string }>`
          INSERT INTO users (organization_id, department_id, email, name, role, clearance)
          VALUES (${org!.id}, ${department!.id}, ${settings.adminEmail}, 'Administrator', 'ADMIN', 'RESTRICTED')
          RETURNING id`
        yield* sql`INSERT INTO platform_role_members (role, user_id) VALUES ('ORG_ADMIN', ${admin!.id})`
        const [space] = yield* sql<{ id: string }>`
          INSERT INTO knowledge_spaces (organization_id, key, name, department_id)
          VALUES (${org!.id}, 'general', 'General', ${department!.id}) RETURNING id`
        yield* sql`
          INSERT INTO space_grants (knowledge_space_id, relation, kind, subject_id, created_by)
          VALUES (${space!.id}, 'viewer', 'ORGANIZATION', NULL, ${admin!.id}), (${space!.id}, 'manager', 'USER', ${admin!.id}, ${admin!.id})`
        const issued = yield* tokens.issue(admin!.id, "bootstrap", null, Option.getOrUndefined(chosen))
        return Option.some(issued.token)
      })
    ).pipe(Effect.orDie)

    return Option.map(created, (token) => {
      mkdirSync(settings.dataDir, { recursive: true })
      const tokenFile = join(settings.dataDir, "bootstrap-token")
      writeFileSync(tokenFile, token + "\n", { mode: 0o600 })
      chmodSync(tokenFile, 0o600)
      return { adminEmail: settings.adminEmail, token, tokenFile }
    })
  })
)
