import { Effect } from "effect"
import { type Clearance, clearanceCeiling, classificationRank } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { ClearanceAboveOwn, SelfAdministration } from "./Errors"

/**
 * Who may change what about a person. The permission on the endpoint (users.manage, roles.manage,
 * invitations.manage) says who administers people at all; these rules hold on top of it.
 *
 * - Nobody changes their own role, clearance, department, active state or platform roles: another
 *   administrator must (a compromised admin token cannot quietly widen itself; every widening has a witness).
 *   A name is one's own to change.
 * - Nobody hands out a clearance above their own, by update or by invitation.
 * - Managing a department belongs to membership of it: a move ends the management of the department left
 *   (see `managementEndedByMove`).
 */
export const userChange = (actor: Principal, targetUserId: string, patch: { readonly role?: unknown; readonly clearance?: Clearance | undefined; readonly departmentId?: unknown; readonly active?: unknown }) =>
  Effect.gen(function* () {
    const governing = patch.role !== undefined || patch.clearance !== undefined || patch.departmentId !== undefined || patch.active !== undefined
    if (governing && actor.userId === targetUserId) {
      return yield* new SelfAdministration({ detail: "You cannot change your own role, clearance, department or active state; ask another administrator" })
    }
    if (patch.clearance !== undefined) yield* clearanceGrant(actor, patch.clearance)
  })

export const roleChange = (actor: Principal, targetUserId: string) =>
  actor.userId === targetUserId
    ? Effect.fail(new SelfAdministration({ detail: "You cannot change your own platform roles; ask another administrator" }))
    : Effect.void

export const clearanceGrant = (actor: Principal, clearance: Clearance) =>
  classificationRank[clearanceCeiling[clearance]] > classificationRank[clearanceCeiling[actor.clearance]]
    ? Effect.fail(new ClearanceAboveOwn({ detail: `You cannot grant clearance ${clearance}: your own is ${actor.clearance}` }))
    : Effect.void

/**
 * The department whose management a change ends: the one a user leaves when moved. Managing a department is
 * part of belonging to it (its DEPARTMENT_MANAGERS grants give access to its spaces), so a manager moved to
 * Sales stops managing Engineering at once rather than keeping a foothold there; making them manager of the
 * new department, or of the old one again, is a separate, audited change.
 */
export const managementEndedByMove = (before: { readonly departmentId: string }, patch: { readonly departmentId?: string | undefined }) =>
  patch.departmentId !== undefined && patch.departmentId !== before.departmentId ? before.departmentId : undefined
