import { SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Option, Redacted } from "effect"
import { chmodSync, mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Spaces } from "../access/Spaces"
import { Settings } from "../Config"
import { transactional } from "../db/Sql"
import { systemActor } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AdminRepo } from "./AdminRepo"
import { Departments } from "./Departments"
import { Roles } from "./Roles"
import { isTokenShaped, Tokens } from "./Tokens"

export interface FirstStartInfo {
  readonly adminEmail: string
  readonly token: string
  readonly tokenFile: string
}

/** Set when this start created the organization: what to tell the operator, once. */
export class FirstStart extends Context.Tag("lore/FirstStart")<FirstStart, Option.Option<FirstStartInfo>>() {}

/**
 * On an empty database: the organization, a department, the admin user, a knowledge space that the whole
 * organization may view and the admin manages, and the bootstrap token (LORE_BOOTSTRAP_TOKEN when given).
 * Everything after the organization goes through the services an administrator uses, acting as the system
 * actor, so it is audited and raises the authorization generation like any later change. Under an advisory
 * lock, so several processes starting together create one organization.
 */
export const BootstrapLive = Layer.effect(
  FirstStart,
  Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const settings = yield* Settings
    const repo = yield* AdminRepo
    const departments = yield* Departments
    const roles = yield* Roles
    const spaces = yield* Spaces
    const audit = yield* Audit
    const tokens = yield* Tokens
    const chosen = Option.map(settings.bootstrapToken, Redacted.value)
    if (Option.isSome(chosen) && !isTokenShaped(chosen.value)) {
      return yield* Effect.dieMessage("LORE_BOOTSTRAP_TOKEN must look like any Lore token: lore_pat_ followed by at least 20 of A-Z a-z 0-9 _ -")
    }
    const created = yield* transaction(
      Effect.gen(function* () {
        yield* repo.lockFirstStart()
        if (yield* repo.anyOrganization()) return Option.none()
        const { id: organizationId } = yield* repo.insertOrganization("Lore")
        const lore = systemActor(organizationId, "first-start")
        const department = yield* departments.create(lore, "General")
        const admin = { email: settings.adminEmail, role: "ADMIN", clearance: "RESTRICTED" } as const
        const { id: adminId } = yield* repo.insertUser({ organizationId, departmentId: department.id, name: "Administrator", ...admin })
        yield* audit.record(lore, { action: "user.create", resourceType: "user", resourceId: adminId, details: { ...admin, departmentId: department.id } })
        yield* roles.addMember(lore, "ORG_ADMIN", adminId)
        const space = yield* spaces.create(lore, { key: "general", name: "General", departmentId: department.id }, adminId)
        yield* spaces.addGrant(lore, space.id, { relation: "viewer", kind: "ORGANIZATION" })
        const issued = yield* tokens.issue(adminId, "bootstrap", null, Option.getOrUndefined(chosen))
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
).pipe(Layer.provide(AdminRepo.Default))
