import { Effect, Layer } from "effect"
import { ResourceResolvers } from "../access/Resources"
import { holds } from "../domain/Permissions"
import { PlatformRole } from "../domain/Model"
import { AdminRepo } from "./AdminRepo"
import { AuthenticationLive, AuthorizationLive } from "./AuthenticationLive"
import { Authenticator } from "./Authenticator"
import { Departments } from "./Departments"
import { Invitations } from "./Invitations"
import { Roles } from "./Roles"
import { Users } from "./Users"
import { Directory } from "./Directory"
import { Sessions } from "./Sessions"
import { Tokens } from "./Tokens"
import { Sso } from "./sso/Sso"

/**
 * The audit trail labels people and departments as the administration lists show them, to whoever may read
 * those lists (users.read; invitations.manage for invitations).
 */
const PeopleLabelsLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const repo = yield* AdminRepo
    const resolvers = yield* ResourceResolvers
    yield* resolvers.registerLabel("user", (caller, id) =>
      holds(caller, "users.read") ? Effect.map(repo.user(caller.organizationId, id), (user) => user?.email ?? null) : Effect.succeed(null))
    yield* resolvers.registerLabel("department", (caller, id) =>
      holds(caller, "users.read") ? Effect.map(repo.department(caller.organizationId, id), (department) => department?.name ?? null) : Effect.succeed(null))
    yield* resolvers.registerLabel("invitation", (caller, id) =>
      holds(caller, "invitations.manage") ? Effect.map(repo.invitation(caller.organizationId, id), (invitation) => invitation?.email ?? null) : Effect.succeed(null))
    // A platform role's id is its name.
    yield* resolvers.registerLabel("role", (_caller, id) => Effect.succeed((PlatformRole.literals as ReadonlyArray<string>).includes(id) ? id : null))
  })
).pipe(Layer.provide(Layer.mergeAll(AdminRepo.Default, ResourceResolvers.Default)))

/** The identity area: people and their credentials, and the middleware that authenticates and authorizes callers. */
export const IdentityLive = Layer.mergeAll(AuthenticationLive, AuthorizationLive, PeopleLabelsLive).pipe(
  Layer.provideMerge(Layer.mergeAll(Users.Default, Roles.Default, Departments.Default, Invitations.Default, Directory.Default, Sessions.Default, Tokens.Default, Authenticator.Default, Sso.Default))
)
