import { SqlClient } from "@effect/sql"
import { Effect, FiberRef, Option, Schema } from "effect"
import { Count, exec, rows } from "../db/Rows"

export interface UsageRecord {
  readonly organizationId: string
  readonly workload: string
  readonly gatewayId: string
  readonly gatewayKey: string
  readonly modelId: string
  readonly inputTokens: number
  readonly outputTokens: number
  readonly durationMs: number
  readonly outcome: "OK" | "FAILED"
}

export const UsageTotalRow = Schema.Struct({
  day: Schema.String,
  workload: Schema.String,
  gatewayKey: Schema.String,
  modelId: Schema.String,
  calls: Count,
  failedCalls: Count,
  inputTokens: Count,
  outputTokens: Count,
  durationMs: Count
})
export type UsageTotalRow = typeof UsageTotalRow.Type

/** A usage record as jsonb_to_recordset reads it (the column names). */
const usageRecord = (usage: UsageRecord) => ({
  organization_id: usage.organizationId, workload: usage.workload, gateway_id: usage.gatewayId, gateway_key: usage.gatewayKey, model_id: usage.modelId,
  input_tokens: Math.round(usage.inputTokens), output_tokens: Math.round(usage.outputTokens), duration_ms: Math.round(usage.durationMs), outcome: usage.outcome
})

/** SQL for the per-call usage log of the model layer and its totals. */
/**
 * Usage rows held back while an assistant chat streams (docs/decisions.md "Assistant tool calls"): the chat sets
 * an array here for its fibers and writes what gathered once its stream has ended, so the usage log costs its
 * first token nothing. Unset (everywhere else), a call's usage is written at once.
 */
export const heldUsage = FiberRef.unsafeMake<Option.Option<Array<UsageRecord>>>(Option.none())

export class UsageRepo extends Effect.Service<UsageRepo>()("lore/UsageRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const insert = exec((usage: UsageRecord) => sql`
      INSERT INTO ai_usage (organization_id, workload, gateway_id, gateway_key, model_id, input_tokens, output_tokens, duration_ms, outcome)
      VALUES (${usage.organizationId}, ${usage.workload}, ${usage.gatewayId}, ${usage.gatewayKey}, ${usage.modelId},
        ${usage.inputTokens}, ${usage.outputTokens}, ${usage.durationMs}, ${usage.outcome})`)
    const insertAll = (records: ReadonlyArray<UsageRecord>) => sql`
      INSERT INTO ai_usage (organization_id, workload, gateway_id, gateway_key, model_id, input_tokens, output_tokens, duration_ms, outcome)
      SELECT u.organization_id, u.workload, u.gateway_id, u.gateway_key, u.model_id, u.input_tokens, u.output_tokens, u.duration_ms, u.outcome
      FROM jsonb_to_recordset(${JSON.stringify(records.map(usageRecord))}::jsonb) AS u(
        organization_id uuid, workload text, gateway_id uuid, gateway_key text, model_id text, input_tokens integer, output_tokens integer, duration_ms integer, outcome text)`
    return {
      /** Writes a call's usage, or holds it for the chat streaming on this fiber (`heldUsage`). */
      record: (usage: UsageRecord) =>
        Effect.flatMap(FiberRef.get(heldUsage), (held) => (Option.isSome(held) ? Effect.sync(() => void held.value.push(usage)) : insert(usage))),
      /** Writes usage rows held back, in one statement (none when there are none). */
      recordAll: (records: ReadonlyArray<UsageRecord>) => (records.length === 0 ? Effect.void : exec(() => insertAll(records))()),
      /** The INSERT of `records` as a fragment, for a statement that writes them with something else (a chat's answer). */
      insertAll,
      /** Totals per UTC day, workload, gateway and model in [since, until). */
      totals: rows("ai.usageTotals", UsageTotalRow, (organizationId: string, since: Date, until: Date) => sql`
        SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, workload, gateway_key, model_id,
          count(*)::int AS calls, count(*) FILTER (WHERE outcome = 'FAILED')::int AS failed_calls,
          sum(input_tokens)::int AS input_tokens, sum(output_tokens)::int AS output_tokens, sum(duration_ms)::int AS duration_ms
        FROM ai_usage
        WHERE organization_id = ${organizationId} AND created_at >= ${since} AND created_at < ${until}
        GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`)
    }
  })
}) {}
