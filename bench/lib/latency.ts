/**
 * Latency of a list of distinct operations (e.g. one search per question): a warm-up pass, then timed
 * passes, sequentially or with N in flight. Percentiles are nearest-rank over every timed operation.
 */
import http from "node:http"

export interface Latency {
  readonly count: number
  readonly p50Ms: number
  readonly p95Ms: number
  readonly meanMs: number
  /** Operations per second over the timed passes (wall clock). */
  readonly perSecond: number
  readonly failures: number
}

export interface LatencyOptions {
  /** Timed passes over the operations (after one warm-up pass). */
  readonly rounds: number
  readonly concurrency: number
  /**
   * Time cap of the timed passes: no operation starts after this many seconds, even mid-pass (slow queries
   * would otherwise take the bench past its budget). Give the same operations in the same order to the
   * things being compared, so a cap cuts both at about the same place. At least one operation is timed.
   */
  readonly maxSeconds: number
  /** Time cap of the warm-up pass (default: a third of maxSeconds). */
  readonly warmupSeconds?: number
}

export const percentile = (sorted: ReadonlyArray<number>, q: number) => sorted.length === 0 ? NaN : sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!

/** Each operation resolves true when its answer was right (2xx, expected shape); false counts as a failure. */
export const measureLatency = async (operations: ReadonlyArray<() => Promise<boolean>>, options: LatencyOptions): Promise<Latency> => {
  let failures = 0
  const samples: number[] = []
  /** Runs `passes` passes over the operations, N in flight, until the passes are done or `seconds` have passed. */
  const run = async (passes: number, seconds: number, timed: boolean) => {
    const deadline = performance.now() + seconds * 1000
    const total = passes * operations.length
    let next = 0
    let started = 0
    await Promise.all(
      Array.from({ length: Math.max(1, options.concurrency) }, async () => {
        while (next < total && (started === 0 || performance.now() < deadline)) {
          const operation = operations[next++ % operations.length]!
          started++
          const begin = performance.now()
          const ok = await operation()
          const elapsed = performance.now() - begin
          if (!timed) continue
          if (!ok) failures++
          samples.push(elapsed)
        }
      })
    )
  }
  await run(1, options.warmupSeconds ?? options.maxSeconds / 3, false)
  const started = performance.now()
  await run(options.rounds, options.maxSeconds, true)
  const wall = (performance.now() - started) / 1000
  const sorted = [...samples].sort((a, b) => a - b)
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    meanMs: sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length),
    perSecond: sorted.length / wall,
    failures
  }
}

/** A keep-alive HTTP GET that reads the whole body (node:http: less client overhead than fetch). */
export const httpGetter = (maxSockets: number) => {
  const agent = new http.Agent({ keepAlive: true, maxSockets })
  const get = (url: string, headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (response) => {
          const chunks: Buffer[] = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }))
          response.on("error", reject)
        })
        .on("error", reject)
    })
  return { get, close: () => agent.destroy() }
}
