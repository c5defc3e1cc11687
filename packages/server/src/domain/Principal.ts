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
  /** How the caller proved who they are: a personal access token or a browser session. */
  readonly credential: { readonly kind: "token" | "session"; readonly id: string }
}

/** The authenticated caller of the request being served. */
export class CurrentUser extends Context.Tag("lore/CurrentUser")<CurrentUser, Principal>() {}

/** Runs `f` with the authenticated caller: the handlers' way to reach services that take a Principal. */
export const asCaller = <A, E, R>(f: (caller: Principal) => Effect.Effect<A, E, R>) => Effect.flatMap(CurrentUser, f)
