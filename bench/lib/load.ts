import autocannon from "autocannon"

export interface LoadOptions {
  readonly url: string
  readonly headers?: Record<string, string>
  readonly connections?: number
  /** Seconds of load whose figures are discarded (JIT, caches, pool warm-up). */
  readonly warmupSeconds?: number
  readonly durationSeconds?: number
  /** Called right before and right after the measured run (e.g. to read the server's CPU time). */
  readonly aroundMeasure?: { readonly before: () => Promise<void>; readonly after: () => Promise<void> }
}

export interface LoadFigures {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly requests: number
  /** Responses that were not 2xx, and connection errors/timeouts: any of these makes the figures suspect. */
  readonly non2xx: number
  readonly errors: number
}

const fire = (url: string, headers: Record<string, string>, connections: number, duration: number) =>
  autocannon({ url, headers, connections, duration, pipelining: 1 })

/** autocannon against one URL: a warm-up run, then the measured run. */
export const load = async (options: LoadOptions): Promise<LoadFigures> => {
  const connections = options.connections ?? 10
  const headers = options.headers ?? {}
  await fire(options.url, headers, connections, options.warmupSeconds ?? 2)
  await options.aroundMeasure?.before()
  const result = await fire(options.url, headers, connections, options.durationSeconds ?? 6)
  await options.aroundMeasure?.after()
  return {
    // Mean over the run's one-second samples, as autocannon reports "Req/Sec".
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts
  }
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
