import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { row } from "../db/Rows"

const Tokens = Schema.Struct({ tokens: Schema.Number })
const Available = Schema.Struct({ available: Schema.Number })

/** SQL for the per-user token buckets (rate_limit_buckets), shared by every process on the database. */
export class RateLimitRepo extends Effect.Service<RateLimitRepo>()("lore/assistant/RateLimitRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** Tokens in the bucket now: what was left plus the refill since, capped at the burst. */
    const refilled = (burst: number, perSecond: number) =>
      sql`least(${burst}::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.refilled_at)::float8 * ${perSecond}::float8)`

    /**
     * Takes one token in one statement (the row lock of ON CONFLICT serializes concurrent takers, in any
     * process): a new bucket starts full. Answers the tokens left, or undefined when fewer than one was there.
     */
    const takeStatement = (userId: string, name: string, burst: number, perSecond: number) => sql`
      INSERT INTO rate_limit_buckets AS b (user_id, name, tokens, refilled_at)
      VALUES (${userId}, ${name}, ${burst}::float8 - 1, clock_timestamp())
      ON CONFLICT (user_id, name) DO UPDATE SET tokens = ${refilled(burst, perSecond)} - 1, refilled_at = clock_timestamp()
      WHERE ${refilled(burst, perSecond)} >= 1
      RETURNING b.tokens`
    const take = row("rateLimits.take", Tokens, takeStatement)

    const available = row("rateLimits.available", Available, (userId: string, name: string, burst: number, perSecond: number) => sql`
      SELECT ${refilled(burst, perSecond)} AS available FROM rate_limit_buckets b WHERE b.user_id = ${userId} AND b.name = ${name}`)

    return { take, takeStatement, available }
  })
}) {}
