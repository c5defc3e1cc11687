import { HttpApp, HttpServerResponse } from "@effect/platform"
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

    const consume = (caller: Principal, name: RateLimitName): Effect.Effect<void, RateLimitExceeded> =>
      Effect.gen(function* () {
        const limit = settings.rateLimits[name]
        // perMinute 0 turns the limit off; system actors (jobs) are not users.
        if (limit.perMinute <= 0 || isSystemActor(caller)) return
        const burst = Math.max(1, limit.burst)
        const perSecond = limit.perMinute / 60
        const taken = yield* repo.take(caller.userId, name, burst, perSecond)
        if (taken) return
        const now = yield* repo.available(caller.userId, name, burst, perSecond)
        const retryAfterSeconds = Math.max(1, Math.ceil((1 - (now?.available ?? 0)) / perSecond))
        yield* HttpApp.appendPreResponseHandler((_request, response) =>
          Effect.succeed(response.status === 429 ? HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)) : response)
        )
        return yield* new RateLimitExceeded({
          detail: `Too many ${labels[name]}: at most ${burst} at once and ${limit.perMinute} a minute (${settingNames[name]}). Retry in ${retryAfterSeconds} s.`
        })
      })

    return { consume }
  }),
  dependencies: [RateLimitRepo.Default]
}) {}
