import { Context, Effect } from "effect"
import type { Clearance, PlatformRole, UserRole } from "./Model"

export interface Principal {
  readonly userId: string
  readonly organizationId: string
  readonly departmentId: string
  readonly departmentName: string
  readonly email: string
  readonly name: string
  readonly role: UserRole
  readonly clearance: Clearance
  readonly platformRoles: ReadonlyArray<PlatformRole>
  /**
   * How the caller proved who they are: a personal access token or a browser session; `system` for Lore
   * itself (see `systemActor`), which no request can present.
   */
  readonly credential: { readonly kind: "token" | "session" | "system"; readonly id: string }
}

/** The authenticated caller of the request being served. */
export class CurrentUser extends Context.Tag("lore/CurrentUser")<CurrentUser, Principal>() {}

/** Runs `f` with the authenticated caller: the handlers' way to reach services that take a Principal. */
export const asCaller = <A, E, R>(f: (caller: Principal) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentUser, f)

/** The user id no person has: the system actor's. */
const NO_USER = "00000000-0000-0000-0000-000000000000"

/**
 * Lore itself acting in an organization, not a person: first start creates its department, space and grants
 * through the same services an administrator uses, so those changes are audited (with no actor user and the
 * task named in the details) and raise the authorization generation like any other. It holds the ADMIN role
 * and the top clearance, matches no grant (its user id is nobody's), and never authenticates a request: it is
 * made in code, never looked up from a credential.
 */
export const systemActor = (organizationId: string, task: string): Principal => ({
  userId: NO_USER,
  organizationId,
  departmentId: NO_USER,
  departmentName: "",
  email: "",
  name: "Lore",
  role: "ADMIN",
  clearance: "RESTRICTED",
  platformRoles: [],
  credential: { kind: "system", id: task }
})

export const isSystemActor = (principal: Principal) => principal.credential.kind === "system"

/** The person behind a change, for audit and `created_by` columns: null when Lore itself acts. */
export const actingUserId = (principal: Principal): string | null => (isSystemActor(principal) ? null : principal.userId)
