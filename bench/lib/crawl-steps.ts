/**
 * The loop every `bench/<kind>-crawl.ts` runs: the kind's `crawl` called step by step from its own checkpoint, as the
 * framework calls it (without applying the pages: Lore's ingestion is measured in bench/connectors.ts), until done.
 * Prints items per second and the heap after each 10% of `expected` items (flat when the kind streams its pages:
 * run with --expose-gc for exact figures), and the final checkpoint's size. A failure in a step stops the bench.
 */
import { Effect } from "effect"
import type { CrawlPage, KindContext } from "../../packages/server/src/connectors/Kind"

export interface CrawlStepsOptions {
  /** What the items are, plural ("files", "pages"). */
  readonly unit: string
  /** How many items the loopback source holds (the heap is read after each tenth of them). */
  readonly expected: number
  /** What each item costs at the source, for the printed line ("permissions + bytes each"). */
  readonly note: string
  /** Called with each step's page (counters of the bench's own). */
  readonly onPage?: (page: CrawlPage) => void
}

export const crawlSteps = async (crawl: (context: KindContext, checkpoint: unknown) => Effect.Effect<CrawlPage>, context: KindContext, options: CrawlStepsOptions) => {
  const gc = (globalThis as { gc?: () => void }).gc
  const heapMb = () => {
    gc?.()
    return Math.round(process.memoryUsage().heapUsed / 1024 / 1024)
  }
  let checkpoint: unknown = null
  let items = 0
  let steps = 0
  let nextReport = options.expected / 10
  const started = performance.now()
  const startHeap = heapMb()
  const heaps: Array<number> = []
  for (;;) {
    const page = await Effect.runPromise(crawl(context, checkpoint))
    steps++
    items += page.documents.length
    if ((page.failures ?? []).length > 0) throw new Error(`failures: ${JSON.stringify(page.failures)}`)
    options.onPage?.(page)
    checkpoint = page.checkpoint
    if (items >= nextReport) {
      heaps.push(heapMb())
      nextReport += options.expected / 10
    }
    if (page.done) break
  }
  const seconds = (performance.now() - started) / 1000
  console.log(`${options.unit} crawled: ${items} in ${steps} steps, ${seconds.toFixed(1)} s: ${(items / seconds).toFixed(0)} ${options.unit}/s (${options.note}; one connection at a time)`)
  console.log(`heap MB at start ${startHeap}, after each 10%: ${heaps.join(", ")}${gc ? "" : " (run with --expose-gc for exact figures)"}`)
  console.log(`checkpoint size at the end: ${JSON.stringify(checkpoint).length} bytes`)
}
