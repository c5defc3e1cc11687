import { Clock, Effect } from "effect"
import type { Principal } from "../domain/Principal"
import { InvalidUsagePeriod } from "./Errors"
import type { Workload } from "./Model"
import { type UsageRecord, type UsageTotalRow, UsageRepo } from "./UsageRepo"

/** A chat holds its usage rows in `heldUsage` while it streams and writes them after (`Usage.recordAll`). */
export { heldUsage, type UsageRecord } from "./UsageRepo"

const DAY_MS = 86_400_000
const MAX_DAYS = 366

interface Totals {
  calls: number
  failedCalls: number
  inputTokens: number
  outputTokens: number
  durationMillis: number
}

const empty = (): Totals => ({ calls: 0, failedCalls: 0, inputTokens: 0, outputTokens: 0, durationMillis: 0 })
const add = (into: Totals, row: UsageTotalRow) => {
  into.calls += row.calls
  into.failedCalls += row.failedCalls
  into.inputTokens += row.inputTokens
  into.outputTokens += row.outputTokens
  into.durationMillis += row.durationMs
  return into
}

/** Sums rows under a key, in key order. */
const grouped = <K extends Record<string, string>>(rows: ReadonlyArray<UsageTotalRow>, keyOf: (row: UsageTotalRow) => K) => {
  const groups = new Map<string, K & Totals>()
  for (const row of rows) {
    const key = keyOf(row)
    const id = Object.values(key).join("\u0000")
    groups.set(id, add(groups.get(id) ?? { ...key, ...empty() }, row) as K & Totals)
  }
  return [...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, value]) => value)
}

/** The model layer's usage: calls, tokens and time per day, workload, gateway and model. */
export class Usage extends Effect.Service<Usage>()("lore/Usage", {
  effect: Effect.gen(function* () {
    const repo = yield* UsageRepo
    return {
      /** Writes usage rows held during a stream (the chat's first token never waits on them). */
      recordAll: (rows: ReadonlyArray<UsageRecord>) => repo.recordAll(rows),
      /** The INSERT of held rows as a statement fragment: a chat writes them with its answer. */
      insertAll: (rows: ReadonlyArray<UsageRecord>) => repo.insertAll(rows),
      summary: (actor: Principal, since: Date | undefined, until: Date | undefined) =>
        Effect.gen(function* () {
          const end = until ?? new Date(yield* Clock.currentTimeMillis)
          const start = since ?? new Date(end.getTime() - 30 * DAY_MS)
          if (start.getTime() >= end.getTime()) return yield* new InvalidUsagePeriod({ detail: "since must be before until" })
          if (end.getTime() - start.getTime() > MAX_DAYS * DAY_MS) return yield* new InvalidUsagePeriod({ detail: `The period may span at most ${MAX_DAYS} days` })
          const rows = yield* repo.totals(actor.organizationId, start, end)
          return {
            since: start,
            until: end,
            totals: rows.reduce(add, empty()),
            byDay: grouped(rows, (row) => ({ day: row.day })),
            byWorkload: grouped(rows, (row) => ({ workload: row.workload as Workload })),
            byGateway: grouped(rows, (row) => ({ gatewayKey: row.gatewayKey })),
            byModel: grouped(rows, (row) => ({ gatewayKey: row.gatewayKey, modelId: row.modelId }))
          }
        })
    }
  }),
  dependencies: [UsageRepo.Default]
}) {}
