/**
 * Sets of issue (or discussion) numbers as sorted, merged inclusive ranges: a crawl lists every number of a
 * repository to find deletions, and a repository's numbers are nearly contiguous, so its checkpoint stays small.
 */
export type Ranges = ReadonlyArray<readonly [number, number]>

export const addToRanges = (ranges: Ranges, numbers: ReadonlyArray<number>): Ranges => {
  const all = [...ranges, ...numbers.map((n) => [n, n] as const)].sort((a, b) => a[0] - b[0])
  const merged: Array<[number, number]> = []
  for (const [start, end] of all) {
    const last = merged.at(-1)
    if (last && start <= last[1] + 1) last[1] = Math.max(last[1], end)
    else merged.push([start, end])
  }
  return merged
}

export const inRanges = (ranges: Ranges, n: number): boolean => {
  let low = 0
  let high = ranges.length - 1
  while (low <= high) {
    const mid = (low + high) >> 1
    const [start, end] = ranges[mid]!
    if (n < start) high = mid - 1
    else if (n > end) low = mid + 1
    else return true
  }
  return false
}
