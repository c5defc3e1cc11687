import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { AccessEvaluator } from "../access/Evaluator"
import { AuthorizationGeneration } from "../access/Generation"
import { transactional } from "../db/Sql"
import { type Clearance, readableClassifications, type UserRole } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { hashSecret, randomSecret } from "../platform/SecretBox"
import { AdminRepo, type InvitationRow } from "./AdminRepo"
import { InvitationAccepted, InvitationExpired, InvitationNotFound, InvitationPending, InvitationRevoked, UserExists } from "./Errors"
import { People } from "./People"
import { clearanceGrant } from "./Policy"
import { Tokens } from "./Tokens"
import { quoteInput } from "../domain/Echo"

export const invitationStatus = (row: InvitationRow) =>
  row.acceptedAt ? "ACCEPTED" as const
    : row.revokedAt ? "REVOKED" as const
    : row.expiresAt.getTime() <= Date.now() ? "EXPIRED" as const
    : "PENDING" as const

const describe = (row: InvitationRow) => ({ ...row, status: invitationStatus(row) })

export interface InvitationInput {
  readonly email: string
  readonly name?: string | undefined
  readonly role: UserRole
  readonly clearance: Clearance
  readonly departmentId: string
  readonly expiresInDays: number
}

/** Inviting people: a one-time code that becomes an active user and a first token. */
export class Invitations extends Effect.Service<Invitations>()("lore/Invitations", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* AdminRepo
    const people = yield* People
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration
    const tokens = yield* Tokens
    const evaluator = yield* AccessEvaluator

    /** What the invitee will read once they accept: their clearance's classifications in their grants' spaces. */
    const readability = (actor: Principal, input: InvitationInput) =>
      Effect.gen(function* () {
        const newcomer: Principal = {
          // No USER grant can name someone who does not exist yet: a fresh id matches none.
          userId: randomUUID(),
          organizationId: actor.organizationId,
          departmentId: input.departmentId,
          departmentName: "",
          email: input.email,
          name: input.email,
          role: input.role,
          clearance: input.clearance,
          platformRoles: [],
          credential: { kind: "token", id: "" }
        }
        const spaces = yield* evaluator.spacesWith(newcomer, "viewer")
        const classifications = readableClassifications(input.clearance)
        const where = spaces.length === 0 ? "no knowledge space yet (grant one to their department or to them)"
          : `${spaces.length === 1 ? "knowledge space" : `${spaces.length} knowledge spaces:`} ${spaces.map((s) => s.key).join(", ")}`
        return {
          classifications,
          knowledgeSpaces: spaces.map(({ id, key, name }) => ({ id, key, name })),
          summary: `Clearance ${input.clearance} reads ${classifications.join(" and ").replace(/ and (?=.* and )/g, ", ")} documents, in ${where}`
        }
      })

    return {
      list: (actor: Principal) => Effect.map(repo.invitations(actor.organizationId), (rows) => rows.map(describe)),

      invite: (actor: Principal, input: InvitationInput) =>
        transaction(
          Effect.gen(function* () {
            yield* people.requireDepartment(actor, input.departmentId)
            yield* clearanceGrant(actor, input.clearance)
            if (yield* repo.userByEmail(actor.organizationId, input.email)) {
              return yield* new UserExists({ detail: `${quoteInput(input.email, 100)} is already a user` })
            }
            if (yield* repo.pendingInvitationFor(actor.organizationId, input.email)) {
              return yield* new InvitationPending({ detail: `${quoteInput(input.email, 100)} has a pending invitation; delete it first` })
            }
            const code = `lore_inv_${randomSecret(24)}`
            const row = yield* repo.insertInvitation({
              organizationId: actor.organizationId,
              email: input.email,
              name: input.name ?? null,
              role: input.role,
              clearance: input.clearance,
              departmentId: input.departmentId,
              codeHash: hashSecret(code),
              invitedBy: actor.userId,
              expiresAt: new Date(Date.now() + input.expiresInDays * 86_400_000)
            })
            yield* audit.record(actor, {
              action: "invitation.create",
              resourceType: "invitation",
              resourceId: row.id,
              details: { email: input.email, role: input.role, clearance: input.clearance, departmentId: input.departmentId }
            })
            return { ...describe(row), invitationCode: code, canRead: yield* readability(actor, input) }
          })
        ),

      revoke: (actor: Principal, invitationId: string) =>
        transaction(
          Effect.gen(function* () {
            const row = yield* repo.invitation(actor.organizationId, invitationId)
            if (!row) return yield* new InvitationNotFound({ detail: "No invitation with this id" })
            yield* repo.revokeInvitation(invitationId)
            yield* audit.record(actor, { action: "invitation.revoke", resourceType: "invitation", resourceId: invitationId, details: { email: row.email } })
          })
        ),

      /** The invitee's side: the code becomes an active user and a first token, exactly once. */
      accept: (code: string, name: string | undefined) =>
        transaction(
          Effect.gen(function* () {
            const row = yield* repo.invitationByCodeForUpdate(hashSecret(code))
            if (!row) return yield* new InvitationNotFound({ detail: "This invitation code is not valid" })
            const status = invitationStatus(row)
            if (status !== "PENDING") {
              return yield* {
                ACCEPTED: new InvitationAccepted({ detail: "This invitation has been used already" }),
                REVOKED: new InvitationRevoked({ detail: "This invitation was revoked" }),
                EXPIRED: new InvitationExpired({ detail: "This invitation has expired" })
              }[status]
            }
            if (yield* repo.userByEmail(row.organizationId, row.email)) {
              return yield* new UserExists({ detail: `${quoteInput(row.email, 100)} is already a user` })
            }
            const { id: userId } = yield* repo.insertUser({
              organizationId: row.organizationId,
              departmentId: row.departmentId,
              email: row.email,
              name: name ?? row.name ?? row.email.split("@")[0]!,
              role: row.role,
              clearance: row.clearance
            })
            yield* repo.markAccepted(row.id, userId)
            yield* generation.bump(row.organizationId)
            const token = yield* tokens.issue(userId, "invitation", undefined)
            const user = (yield* repo.user(row.organizationId, userId))!
            const newcomer: Principal = { ...user, userId, departmentName: "", platformRoles: [], credential: { kind: "token", id: token.id } }
            yield* audit.record(newcomer, { action: "invitation.accept", resourceType: "invitation", resourceId: row.id, details: { email: row.email } })
            return { user, token }
          })
        )
    }
  }),
  dependencies: [AdminRepo.Default, People.Default, Audit.Default, AuthorizationGeneration.Default, Tokens.Default, AccessEvaluator.Default]
}) {}
