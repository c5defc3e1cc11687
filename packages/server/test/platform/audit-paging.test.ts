import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startInspectableServer, type InspectableServer } from "../knowledge/inspect"

let server: InspectableServer
beforeAll(async () => {
  server = await startInspectableServer()
})
afterAll(() => server?.dispose())

const get = async (path: string) => {
  const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${server.adminToken}` } })
  return { status: response.status, body: await response.json() as any }
}

describe("audit paging", () => {
  it("pages through events stamped within one millisecond without skipping or repeating any", async () => {
    // 240 events in one millisecond, a microsecond apart: a millisecond cursor skips all but the first page's.
    await server.sql((sql) => sql`
      INSERT INTO audit_events (organization_id, action, resource_type, resource_id, details, occurred_at)
      SELECT o.id, 'test.burst', 'test', i::text, '{}'::jsonb, timestamptz '2030-01-01 00:00:00.000' + i * interval '1 microsecond'
      FROM organizations o, generate_series(1, 240) AS i`)
    const seen: Array<string> = []
    let cursor: string | null = null
    do {
      const query: string = `/api/admin/audit?resourceType=test&pageSize=7${cursor ? `&cursor=${cursor}` : ""}`
      const { status, body } = await get(query)
      expect(status).toBe(200)
      seen.push(...body.items.map((event: { resourceId: string }) => event.resourceId))
      cursor = body.nextCursor
    } while (cursor)
    expect(seen).toHaveLength(240)
    expect(new Set(seen).size).toBe(240)
    expect(seen[0]).toBe("240")
    expect(seen.at(-1)).toBe("1")
  })

  it("answers a cursor with a malformed id or time with 400 INVALID_CURSOR", async () => {
    for (const forged of ["2020-01-01T00:00:00.000Z|not-a-uuid", "yesterday|00000000-0000-4000-8000-000000000000", "x"]) {
      const { status, body } = await get(`/api/admin/audit?cursor=${Buffer.from(forged).toString("base64url")}`)
      expect(status).toBe(400)
      expect(body.code).toBe("INVALID_CURSOR")
    }
  })
})
