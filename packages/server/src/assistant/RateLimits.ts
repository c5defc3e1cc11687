import { HttpApp, HttpServerResponse } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { Settings } from "../Config"
import { isSystemActor, type Principal } from "../domain/Principal"
import { type RateLimitName, RateLimitExceeded } from "./RateLimitErrors"
import { RateLimitRepo } from "./RateLimitRepo"

export { RateLimitExceeded, type RateLimitName } from "./RateLimitErrors"

const labels: Record<RateLimitName, string> = { chat: "chat messages", fileUpload: "file uploads" }
const settingNames: Record<RateLimitName, string> = { chat: "LORE_RATE_LIMIT_CHAT_*", fileUpload: "LORE_RATE_LIMIT_FILE_UPLOAD_*" }

/**
 * Per-user rate limits: a token bucket per user and limit name (Config.ts RateLimitSettings), kept in the
 * database so every Lore process on it shares the count (see docs/decisions.md, "Rate limits").
 *
 *   yield* rateLimits.consume(caller, "chat")   // fails with RateLimitExceeded (429, RATE_LIMITED)
 *
 * Inside an HTTP request the 429 also carries Retry-After: the whole seconds until a token is back.
 */
export class RateLimits extends Effect.Service<RateLimits>()("lore/RateLimits", {
  effect: Effect.gen(function* () {
    const repo = yield* RateLimitRepo
    const settings = yield* Settings
    const sql = yield* SqlClient.SqlClient

    const limitOf = (caller: Principal, name: RateLimitName) => {
      const limit = settings.rateLimits[name]
      // perMinute 0 turns the limit off; system actors (jobs) are not users.
      if (limit.perMinute <= 0 || isSystemActor(caller)) return undefined
      return { perMinute: limit.perMinute, burst: Math.max(1, limit.burst), perSecond: limit.perMinute / 60 }
    }

    /** The refusal when no token was there: 429 with the seconds until one is back (Retry-After). */
    const refuse = (caller: Principal, name: RateLimitName): Effect.Effect<never, RateLimitExceeded> =>
      Effect.gen(function* () {
        const limit = limitOf(caller, name) ?? { perMinute: 0, burst: 1, perSecond: 1 }
        const now = yield* repo.available(caller.userId, name, limit.burst, limit.perSecond)
        const retryAfterSeconds = Math.max(1, Math.ceil((1 - (now?.available ?? 0)) / limit.perSecond))
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(response.status === 429 ? HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)) : response)
        )
        return yield* new RateLimitExceeded({
          detail: `Too many ${labels[name]}: at most ${limit.burst} at once and ${limit.perMinute} a minute (${settingNames[name]}). Retry in ${retryAfterSeconds} s.`
        })
      })

    const consume = (caller: Principal, name: RateLimitName): Effect.Effect<void, RateLimitExceeded> =>
      Effect.gen(function* () {
        const limit = limitOf(caller, name)
        if (!limit) return
        if (yield* repo.take(caller.userId, name, limit.burst, limit.perSecond)) return
        return yield* refuse(caller, name)
      })

    /**
     * The token as part of the statement that records the request (folded, it costs no statement of its own): an
     * INSERT ... RETURNING that returns a row when a token was taken, for a CTE the writes depend on; a plain
     * one-row SELECT when the limit is off. No row: call `refuse`.
     */
    const tokenStatement = (caller: Principal, name: RateLimitName) => {
      const limit = limitOf(caller, name)
      return limit ? repo.takeStatement(caller.userId, name, limit.burst, limit.perSecond) : taken
    }
    /** In place of tokenStatement when an earlier statement of the same request took the token. */
    const taken = sql`SELECT 1 AS tokens`

    return { consume, tokenStatement, taken, refuse }
  }),
  dependencies: [RateLimitRepo.Default]
}) {}
