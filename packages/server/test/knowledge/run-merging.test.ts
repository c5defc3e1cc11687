import { describe, expect, it } from "vitest"
import { POSTING_BYTES } from "../../src/knowledge/PackedRanking"
import { appendedBlockSize, mergePlan, mergeRuns, RUN_FANOUT } from "../../src/knowledge/RunMerging"

/** A run of postings (chunk id bytes from `ids`, impacts) in the packer's order: impact descending, then id. */
const run = (postings: ReadonlyArray<readonly [number, number]>) => {
  const sorted = [...postings].sort(([idA, a], [idB, b]) => (b !== a ? b - a : idA - idB))
  const bytes = new Uint8Array(sorted.length * POSTING_BYTES)
  const view = new DataView(bytes.buffer)
  sorted.forEach(([id, impact], i) => {
    view.setUint32(i * POSTING_BYTES + 12, id)
    view.setFloat32(i * POSTING_BYTES + 16, impact)
  })
  return bytes
}
const decoded = (bytes: Uint8Array) => {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  return Array.from({ length: bytes.byteLength / POSTING_BYTES }, (_, i) => [view.getUint32(i * POSTING_BYTES + 12), view.getFloat32(i * POSTING_BYTES + 16)] as const)
}

describe("merging appended runs", () => {
  it("merges a tier once it holds RUN_FANOUT runs, and the merged run again where its own tier fills", () => {
    const small = (n: number) => Array.from({ length: n }, (_, i) => ({ run: `s${i}`, postings: 20 }))
    expect(mergePlan(small(RUN_FANOUT - 1))).toEqual([])
    expect(mergePlan(small(9))).toEqual([small(9).map((r) => r.run)])
    // Three runs of the next tier and enough small ones to make a fourth: one merge of all of them.
    const tier1 = [{ run: "a", postings: 150 }, { run: "b", postings: 170 }, { run: "c", postings: 160 }]
    const plan = mergePlan([...tier1, ...small(8)])
    expect(plan).toHaveLength(1)
    expect([...plan[0]!].sort()).toEqual([...tier1, ...small(8)].map((r) => r.run).sort())
    // A large run stays out of small merges: a posting is rewritten about once per tier.
    expect(mergePlan([{ run: "big", postings: 20_000 }, ...small(4)])).toEqual([small(4).map((r) => r.run)])
  })

  it("k-way merges runs into the packer's order, cut into blocks whose top impact is their first posting's", () => {
    const runs = [run([[1, 0.5], [2, 0.9], [3, 0.1]]), run([[4, 0.7], [5, 0.5], [6, 0.05]]), run([[7, 0.95]]), new Uint8Array(0)]
    const blocks = mergeRuns(runs, 2)
    const all = blocks.flatMap((block) => decoded(block.packed))
    const expected = runs.flatMap(decoded).sort(([idA, a], [idB, b]) => (b !== a ? b - a : idA - idB))
    expect(all).toEqual(expected)
    expect(blocks.map((block) => block.postings)).toEqual([2, 2, 2, 1])
    blocks.forEach((block) => expect(block.topImpact).toBe(Math.max(...decoded(block.packed).map(([, impact]) => impact))))
  })

  it("sizes a merged run's blocks like the packer's appended ones", () => {
    expect(appendedBlockSize(256, 30, 30_000)).toBe(32)
    expect(appendedBlockSize(256, 15_000, 30_000)).toBe(128)
    expect(appendedBlockSize(256, 60_000, 30_000)).toBe(256)
    expect(appendedBlockSize(256, 10, 0)).toBe(256)
  })
})
