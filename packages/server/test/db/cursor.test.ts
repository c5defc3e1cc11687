import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { cursorCodec, decodeCursor, encodeCursor, keysetCursor } from "../../src/db/Cursor"
import { resourcesCursor, resourcesOffset } from "../../src/mcp/Resources"

/** The one cursor codec (db/Cursor.ts) behind the HTTP lists, the connectors' document listing and MCP resources/list. */
describe("the cursor codec", () => {
  const position = { at: "2026-11-25T04:26:34.123456Z", id: "0b8a4c1e-2f4d-4f7a-9a51-3b1d9f0e6c21" }

  it("keeps the keyset cursor's wire format: base64url of `at|id`", () => {
    expect(encodeCursor(position)).toBe(Buffer.from(`${position.at}|${position.id}`).toString("base64url"))
    expect(keysetCursor.decode(encodeCursor(position))).toEqual(position)
    expect(Effect.runSync(decodeCursor(encodeCursor(position)))).toEqual(position)
  })

  it("refuses cursors it did not write: padded, another alphabet, a text the position does not parse", () => {
    const padded = Buffer.from(`${position.at}|${position.id}`).toString("base64") + "="
    for (const forged of [padded, "!!bogus", Buffer.from("2026|x").toString("base64url"), ""]) {
      expect(keysetCursor.decode(forged)).toBeUndefined()
    }
    const refused = Effect.runSync(Effect.either(decodeCursor("!!bogus")))
    expect(Either.isLeft(refused) && refused.left._tag).toBe("InvalidCursor")
  })

  it("serves any position that writes itself as text (the connectors' external ids, unicode included)", () => {
    const externalIds = cursorCodec<string>((id) => id, (text) => (text.length > 0 ? text : undefined))
    for (const id of ["crm-42", "a|b", "éü/≠ 🎉"]) expect(externalIds.decode(externalIds.encode(id))).toBe(id)
    expect(externalIds.encode("crm-42")).toBe(Buffer.from("crm-42").toString("base64url"))
  })

  it("reads MCP resources/list cursors in the shared encoding and the bare offsets given out before it", () => {
    expect(resourcesOffset(resourcesCursor.encode(50))).toBe(50)
    expect(resourcesOffset("50")).toBe(50)
    for (const forged of ["not-a-cursor", "-1", "1.5", "0050", resourcesCursor.encode(-1)]) expect(resourcesOffset(forged)).toBeUndefined()
  })
})
