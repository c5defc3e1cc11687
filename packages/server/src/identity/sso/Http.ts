import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { Settings } from "../../Config"
import { asCaller } from "../../domain/Principal"
import { SESSION_COOKIE } from "../../domain/Security"
import { LoreApi } from "../../http/Api"
import { publicOrigin } from "../../domain/PublicUrl"
import { Sso } from "./Sso"

const STATE_COOKIE = "lore_sso_state"
const STATE_COOKIE_PATH = "/api/session/sso"

export const SsoSessionHttp = HttpApiBuilder.group(LoreApi, "sso", (handlers) =>
  Effect.gen(function* () {
    const sso = yield* Sso
    const settings = yield* Settings
    // The redirect URI: LORE_PUBLIC_URL, else Host (forwarding headers only from LORE_TRUSTED_PROXIES).
    const originOf = publicOrigin(settings)
    return handlers
      .handleRaw("startSso", ({ request, urlParams }) =>
        Effect.gen(function* () {
          const started = yield* sso.start(originOf(request), urlParams.returnTo, urlParams.cliRedirect)
          // SameSite=Lax: the provider's redirect back is a top-level GET, which Lax cookies accompany.
          return yield* HttpServerResponse.redirect(started.url, { status: 302 }).pipe(
            HttpServerResponse.setCookie(STATE_COOKIE, started.state, {
              httpOnly: true, secure: settings.secureCookies, sameSite: "lax", path: STATE_COOKIE_PATH, maxAge: "600 seconds"
            }),
            Effect.orDie
          )
        }))
      .handleRaw("ssoCallback", ({ request, urlParams }) =>
        Effect.gen(function* () {
          const url = new URL(request.url, "http://lore")
          const outcome = yield* sso.callback(originOf(request), url.search, urlParams, request.cookies[STATE_COOKIE])
          const cleared = (response: HttpServerResponse.HttpServerResponse) =>
            HttpServerResponse.expireCookie(response, STATE_COOKIE, { path: STATE_COOKIE_PATH })
          if (outcome.kind === "cli") return yield* Effect.orDie(cleared(HttpServerResponse.redirect(outcome.redirect, { status: 302 })))
          const response = yield* Effect.orDie(cleared(HttpServerResponse.redirect(outcome.returnTo, { status: 302 })))
          return yield* Effect.orDie(HttpServerResponse.setCookie(response, SESSION_COOKIE, outcome.secret, {
            httpOnly: true, secure: settings.secureCookies, sameSite: "lax", path: "/",
            maxAge: `${Math.floor((outcome.expiresAt.getTime() - Date.now()) / 1000)} seconds`
          }))
        }))
  })
)

export const SsoAdminHttp = HttpApiBuilder.group(LoreApi, "adminSso", (handlers) =>
  Effect.gen(function* () {
    const sso = yield* Sso
    return handlers
      .handle("getSsoSettings", () => asCaller(sso.get))
      .handle("setSsoSettings", ({ payload }) => asCaller((me) => sso.set(me, payload)))
  })
)
