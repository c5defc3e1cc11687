/** The part of autocannon 8's programmatic API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  interface Options {
    readonly url: string
    readonly headers?: Record<string, string>
    readonly connections?: number
    readonly duration?: number
    readonly pipelining?: number
  }

  interface Histogram {
    readonly average: number
    readonly total: number
    readonly p50: number
    readonly p99: number
  }

  interface Result {
    readonly duration: number
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly requests: Histogram
    readonly latency: Histogram
  }

  interface Instance extends EventEmitter {
    stop(): void
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance
  function autocannon(options: Options): Promise<Result>

  export default autocannon
}
