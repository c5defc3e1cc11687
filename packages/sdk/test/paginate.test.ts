import { describe, expect, it } from "vitest"
import { paginate } from "../src/index"

describe("paginate", () => {
  it("follows nextCursor until it is absent, lazily", async () => {
    const pages: Record<string, { items: Array<number>; nextCursor?: string | null }> = {
      start: { items: [1, 2], nextCursor: "b" },
      b: { items: [3], nextCursor: "c" },
      c: { items: [4, 5], nextCursor: null }
    }
    const asked: Array<string | undefined> = []
    const all: Array<number> = []
    for await (const item of paginate(async (cursor) => {
      asked.push(cursor)
      return pages[cursor ?? "start"]!
    })) all.push(item)
    expect(all).toEqual([1, 2, 3, 4, 5])
    expect(asked).toEqual([undefined, "b", "c"])
  })

  it("fetches no further page when the caller stops early", async () => {
    let calls = 0
    for await (const item of paginate(async () => ({ items: [calls++, 0], nextCursor: "again" + calls }))) {
      expect(item).toBe(0)
      break
    }
    expect(calls).toBe(1)
  })

  it("stops on a cursor that repeats instead of looping forever", async () => {
    let calls = 0
    const items: Array<string> = []
    for await (const item of paginate(async () => ({ items: [`p${++calls}`], nextCursor: "same" }))) items.push(item)
    expect(items).toEqual(["p1", "p2"])
  })
})
