import { Layer } from "effect"
import { AuthenticationLive, AuthorizationLive } from "./AuthenticationLive"
import { Authenticator } from "./Authenticator"
import { Departments } from "./Departments"
import { Invitations } from "./Invitations"
import { Roles } from "./Roles"
import { Users } from "./Users"
import { Directory } from "./Directory"
import { Sessions } from "./Sessions"
import { Tokens } from "./Tokens"

/** The identity area: people and their credentials, and the middleware that authenticates and authorizes callers. */
export const IdentityLive = Layer.mergeAll(AuthenticationLive, AuthorizationLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Users.Default, Roles.Default, Departments.Default, Invitations.Default, Directory.Default, Sessions.Default, Tokens.Default, Authenticator.Default))
)
