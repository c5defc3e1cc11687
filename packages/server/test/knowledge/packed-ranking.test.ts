import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { packedCandidates, type PackedList, POSTING_BYTES } from "../../src/knowledge/PackedRanking"

/** Postings packed as search_blocks stores them: the id's 16 bytes, then the impact as a big-endian float4. */
const pack = (postings: ReadonlyArray<readonly [string, number]>) => {
  const bytes = new Uint8Array(postings.length * POSTING_BYTES)
  const view = new DataView(bytes.buffer)
  postings.forEach(([id, impact], i) => {
    bytes.set(Buffer.from(id.replace(/-/g, ""), "hex"), i * POSTING_BYTES)
    view.setFloat32(i * POSTING_BYTES + 16, impact)
  })
  return bytes
}

/** The same sums, bound and choice by the definition, with a Map. */
const reference = (lists: ReadonlyArray<PackedList & { readonly postings: ReadonlyArray<readonly [string, number]> }>, candidates: number) => {
  const partial = new Map<string, number>()
  const excess = new Map<string, number>()
  for (const list of lists) {
    for (const [id, impact] of list.postings) {
      partial.set(id, (partial.get(id) ?? 0) + list.weight * Math.fround(impact))
      excess.set(id, (excess.get(id) ?? 0) + list.weight * Math.min(2.2, Math.fround(impact) * list.factor) - list.cut)
    }
  }
  const ranked = [...partial].sort((a, b) => b[1] - a[1])
  const chosen = ranked.slice(0, candidates).map(([id]) => id)
  const unread = lists.reduce((sum, list) => sum + list.cut, 0)
  const rest = ranked.slice(candidates).map(([id]) => excess.get(id)!)
  return { partial, chosen, unscoredBound: unread === 0 && ranked.length <= candidates ? -1 : unread + Math.max(0, ...rest) }
}

describe("packed candidates (early termination's sums over packed blocks)", () => {
  const ids = Array.from({ length: 3000 }, () => randomUUID())
  let seed = 7
  const random = () => ((seed = (seed * 48271) % 2147483647) / 2147483647)
  const listOf = (weight: number, cut: number, size: number, blocks: number) => {
    const postings = Array.from({ length: size }, () => [ids[Math.floor(random() * ids.length)]!, 0.2 + random() * 1.8] as const)
    const per = Math.ceil(size / blocks)
    return {
      weight,
      cut,
      factor: 1.1,
      postings,
      blocks: Array.from({ length: blocks }, (_, b) => pack(postings.slice(b * per, (b + 1) * per)))
    }
  }

  it("sums each chunk over lists and blocks, repeats included, and bounds the chunks it leaves out", () => {
    // Chunks recur across lists and within one (an entry left stale beside the same chunk pending).
    const lists = [listOf(3.1, 0, 400, 1), listOf(1.4, 0.9, 2500, 7), listOf(0.6, 0.5, 2500, 3)]
    for (const candidates of [1, 50, 700, 10_000]) {
      const got = packedCandidates(lists, candidates, 2.2)
      const want = reference(lists, candidates)
      expect(got.ids.length).toBe(Math.min(candidates, want.partial.size))
      // Best first, and none left out sums more than the last chosen.
      const sums = got.ids.map((id) => want.partial.get(id)!)
      expect(sums).toEqual([...sums].sort((a, b) => b - a))
      const last = sums[sums.length - 1]!
      const chosen = new Set(got.ids)
      for (const [id, sum] of want.partial) if (!chosen.has(id)) expect(sum).toBeLessThanOrEqual(last + 1e-9)
      expect(got.unscoredBound).toBeCloseTo(want.unscoredBound, 9)
    }
  })

  it("claims every chunk scored only when every list was read whole and all fit", () => {
    const whole = [listOf(2, 0, 300, 2), listOf(1, 0, 300, 1)]
    expect(packedCandidates(whole, 10_000, 2.2).unscoredBound).toBe(-1)
    expect(packedCandidates(whole, 10, 2.2).unscoredBound).toBeGreaterThan(0)
    expect(packedCandidates([...whole, listOf(0.5, 0.2, 10, 1)], 10_000, 2.2).unscoredBound).toBeCloseTo(0.2, 9)
  })

  it("returns the chunk ids as PostgreSQL writes them", () => {
    const id = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
    expect(packedCandidates([{ weight: 1, cut: 0, factor: 1, blocks: [pack([[id, 1]])] }], 5, 2.2).ids).toEqual([id])
    expect(packedCandidates([], 5, 2.2)).toEqual({ ids: [], unscoredBound: -1 })
  })
})
