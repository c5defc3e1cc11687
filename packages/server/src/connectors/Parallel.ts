/** `work` over `items`, at most `limit` at once, results in the items' order (a crawl step's files or issues). */
export const inParallel = async <A, B>(items: ReadonlyArray<A>, limit: number, work: (item: A) => Promise<B>): Promise<Array<B>> => {
  const results: Array<B> = new Array(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await work(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
