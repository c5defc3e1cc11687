import autocannon from "autocannon"

/** One autocannon run against one URL, with every response time kept. */
export interface Slice {
  readonly seconds: number
  readonly latenciesMs: ReadonlyArray<number>
  /** Responses that were not 2xx, and connection errors/timeouts: any of these makes the figures suspect. */
  readonly non2xx: number
  readonly errors: number
}

export interface LoadFigures {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requests: number
  readonly non2xx: number
  readonly errors: number
}

export interface Target {
  readonly url: string
  readonly headers?: Record<string, string>
  readonly connections?: number
}

/** Loads the target for `seconds` with `connections` keep-alive connections, one request in flight on each. */
export const slice = (target: Target, seconds: number): Promise<Slice> =>
  new Promise((resolve, reject) => {
    const latenciesMs: number[] = []
    let non2xx = 0
    const started = process.hrtime.bigint()
    const instance = autocannon(
      { url: target.url, headers: target.headers ?? {}, connections: target.connections ?? 10, duration: seconds, pipelining: 1 },
      (error, result) => {
        if (error) return reject(error)
        resolve({
          seconds: Number(process.hrtime.bigint() - started) / 1e9,
          latenciesMs,
          non2xx,
          errors: result.errors + result.timeouts
        })
      }
    )
    instance.on("response", (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
      latenciesMs.push(responseTime)
      if (statusCode < 200 || statusCode > 299) non2xx++
    })
  })

const percentile = (sorted: ReadonlyArray<number>, p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

/** Throughput over the slices' summed wall time; percentiles over every response of every slice. */
export const summarize = (slices: ReadonlyArray<Slice>): LoadFigures => {
  const all = slices.flatMap((s) => s.latenciesMs).sort((a, b) => a - b)
  const seconds = slices.reduce((sum, s) => sum + s.seconds, 0)
  return {
    requestsPerSecond: all.length / seconds,
    p50Ms: percentile(all, 50),
    p99Ms: percentile(all, 99),
    requests: all.length,
    non2xx: slices.reduce((sum, s) => sum + s.non2xx, 0),
    errors: slices.reduce((sum, s) => sum + s.errors, 0)
  }
}

/** A warm-up slice whose figures are discarded, then one measured slice. */
export const load = async (target: Target & { warmupSeconds?: number; durationSeconds?: number }): Promise<LoadFigures> => {
  await slice(target, target.warmupSeconds ?? 2)
  return summarize([await slice(target, target.durationSeconds ?? 6)])
}

/** A plain-text table with a header rule; numbers right-aligned. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)))
  const numeric = header.map((_, i) => rows.every((r) => /^[\d.,%x -]*$/.test(r[i] ?? "")))
  const line = (cells: ReadonlyArray<string>) =>
    "| " + cells.map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(" | ") + " |"
  const rule = "|" + widths.map((w, i) => (numeric[i] ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|") + "|"
  return [line(header), rule, ...rows.map(line)].join("\n")
}
