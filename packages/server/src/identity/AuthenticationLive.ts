import { HttpServerRequest } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Authentication } from "../http/Security"
import { Authenticator } from "./Authenticator"

/** Both declared schemes resolve through one Authenticator, which looks at the whole request. */
export const AuthenticationLive = Layer.effect(
  Authentication,
  Effect.gen(function* () {
    const authenticator = yield* Authenticator
    const authenticate = () => Effect.flatMap(HttpServerRequest.HttpServerRequest, authenticator.authenticate)
    return Authentication.of({ bearer: authenticate, session: authenticate })
  })
)
