import { Schema } from "effect"
import { ProblemError } from "../domain/Errors"

/** 429: the response also carries Retry-After (seconds), set by RateLimits.consume. */
export class RateLimitExceeded extends ProblemError<RateLimitExceeded>()("RateLimitExceeded", {
  status: 429, code: "RATE_LIMITED", description: "Too many requests of this kind from this user; retry after the number of seconds in the Retry-After header"
}) {}

/** The names of the per-user limits (Config.ts RateLimitSettings). */
export const RateLimitName = Schema.Literal("chat", "fileUpload")
export type RateLimitName = typeof RateLimitName.Type
