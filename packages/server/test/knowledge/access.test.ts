import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, catalog, client, type Client, expectProblemReply, filler, getRaw, ingested, listAll, search, upload, userClient } from "./support"

/**
 * A passage is visible only with a grant on its space AND clearance for its classification, through
 * every read path (search, catalog, citation excerpt and content, source list, source and content),
 * on both databases (PostgreSQL when DATABASE_URL is set). Grants act at once, both ways, and the
 * explanation agrees with what each user actually sees.
 */

const CLASSIFICATIONS = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"] as const
const CLEARANCES = ["PUBLIC", "STANDARD", "CONFIDENTIAL", "RESTRICTED"] as const
const RANK: Record<string, number> = { PUBLIC: 0, INTERNAL: 1, CONFIDENTIAL: 2, RESTRICTED: 3 }
const CEILING: Record<string, number> = { PUBLIC: 0, STANDARD: 1, CONFIDENTIAL: 2, RESTRICTED: 3 }

/** A word of its own per source, so a search for it can only find that source. */
const codeword = (space: string, classification: string) => `zq${space}${classification.toLowerCase()}marker`

interface Seeded {
  readonly id: string
  readonly knowledgeAssetId: string
  readonly space: string
  readonly spaceId: string
  readonly classification: string
  readonly citationId: string
  readonly bytes: string
}

describe.each(backends)("access to knowledge on $name", { timeout: 240_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  const departments: Record<string, string> = {}
  const spaces: Record<string, string> = {}
  const seeded: Array<Seeded> = []
  const users: Array<Client & { id: string; department: string; clearance: string; label: string }> = []


  /** Which spaces a user's department sees: "open" by an ORGANIZATION grant, "red" by a DEPARTMENT grant, "vault" by nobody. */
  const spaceVisible = (user: { department: string }, space: string) => space === "open" || (space === "red" && user.department === "Red")
  const visible = (user: { department: string; clearance: string }, source: Seeded) =>
    spaceVisible(user, source.space) && RANK[source.classification]! <= CEILING[user.clearance]!
  const ids = (list: ReadonlyArray<string>) => [...new Set(list)].sort()

  beforeAll(async () => {
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    for (const name of ["Red", "Blue"]) departments[name] = (await admin.call("POST", "/api/admin/departments", { name })).body.id
    for (const key of ["open", "red", "vault"]) {
      spaces[key] = (await admin.call("POST", "/api/admin/knowledge-spaces", { key, name: key })).body.id
    }
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.open}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: departments.Red })).status).toBe(204)

    for (const space of ["open", "red", "vault"]) {
      for (const classification of CLASSIFICATIONS) {
        const bytes = `# Ledger ${space} ${classification}\n\nThe ledger entry ${codeword(space, classification)} is kept here. ${filler("ledgers", 2)}`
        const source = await ingested(admin, { spaceId: spaces[space]!, name: `ledger-${space}-${classification}.md`, bytes, classification, type: "text/markdown" })
        expect(source.classification).toBe(classification)
        const [hit] = await search(admin, codeword(space, classification))
        expect(hit?.knowledgeAssetVersionId).toBe(source.id)
        seeded.push({ id: source.id, knowledgeAssetId: source.knowledgeAssetId, space, spaceId: spaces[space]!, classification, citationId: hit!.citationId, bytes })
      }
    }
    for (const department of ["Red", "Blue"]) {
      for (const clearance of CLEARANCES) {
        const user = await userClient(admin.call, server.url, {
          email: `${department.toLowerCase()}-${clearance.toLowerCase()}@example.com`,
          departmentId: departments[department]!,
          clearance
        })
        users.push({ ...user, department, clearance, label: `${department}/${clearance}` })
      }
    }
  }, 240_000)
  afterAll(() => server?.dispose())

  /** Every read path for one user, against the model's expectation. */
  const expectSees = async (user: Client & { department: string; clearance: string; label?: string }) => {
    const expected = seeded.filter((source) => visible(user, source))
    const expectedIds = ids(expected.map((s) => s.id))
    const label = user.label ?? `${user.department}/${user.clearance}`

    const everything = await search(user, "ledger entry kept", { limit: 50 })
    expect(ids(everything.map((e) => e.knowledgeAssetVersionId)), `${label} search`).toEqual(expectedIds)
    expect(ids((await catalog(user)).map((e) => e.knowledgeVersionId)).filter((id) => seeded.some((s) => s.id === id)), `${label} catalog`).toEqual(expectedIds)
    const listed = await listAll(user)
    expect(ids(listed.items.map((s) => s.id)).filter((id) => seeded.some((s) => s.id === id)), `${label} list`).toEqual(expectedIds)
    // Nothing else leaks into the counts either (no other sources exist in these spaces).
    expect(listed.total).toBe(expected.length)
    expect(listed.statusCounts).toEqual({ processing: 0, ready: expected.length, attention: 0 })

    for (const source of seeded) {
      const may = visible(user, source)
      const what = `${label} ${source.space}/${source.classification}`
      const hits = await search(user, codeword(source.space, source.classification))
      expect(hits.map((e) => e.knowledgeAssetVersionId), `${what} search`).toEqual(may ? [source.id] : [])
      const got = await user.call("GET", `/api/sources/${source.id}`)
      const content = await getRaw(user, `/api/sources/${source.id}/content`)
      const excerpt = await user.call("GET", `/api/citations/${source.citationId}/excerpt`)
      const cited = await getRaw(user, `/api/citations/${source.citationId}/content`)
      if (may) {
        expect(got.status, `${what} source`).toBe(200)
        expect(content.status, `${what} content`).toBe(200)
        expect(await content.text()).toBe(source.bytes)
        expect(excerpt.status, `${what} excerpt`).toBe(200)
        expect(excerpt.body.excerpt).toContain(codeword(source.space, source.classification))
        expect(cited.status, `${what} citation content`).toBe(200)
        expect(await cited.text()).toBe(source.bytes)
      } else {
        expectProblemReply(got, 404, "SOURCE_NOT_FOUND")
        expect(content.status, `${what} content`).toBe(404)
        expect(content.headers.get("content-type")).toMatch(/^application\/problem\+json/)
        const body = await content.text()
        expect(body).not.toContain(codeword(source.space, source.classification))
        expectProblemReply(excerpt, 404, "CITATION_NOT_FOUND")
        expect(JSON.stringify(excerpt.body)).not.toContain(codeword(source.space, source.classification))
        expect(cited.status, `${what} citation content`).toBe(404)
        expect(await cited.text()).not.toContain(codeword(source.space, source.classification))
      }
    }
  }

  it("shows each user exactly the sources their grants and clearance allow, on every read path", async () => {
    for (const user of users) await expectSees(user)
    // The population exercises both the grant and the clearance branch.
    const standardRed = users.find((u) => u.label === "Red/STANDARD")!
    const confidentialRed = seeded.find((s) => s.space === "red" && s.classification === "CONFIDENTIAL")!
    expect(visible(standardRed, confidentialRed)).toBe(false)
    expect(spaceVisible(standardRed, "red")).toBe(true)
  })

  it("a grant shows a space's passages at once, and revoking it hides them at once", async () => {
    const blue = users.find((u) => u.label === "Blue/RESTRICTED")!
    const red = seeded.find((s) => s.space === "red" && s.classification === "INTERNAL")!
    expect(await search(blue, codeword("red", "INTERNAL"))).toEqual([])

    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "USER", subjectId: blue.id })).status).toBe(204)
    const asRed = { ...blue, department: "Red" }
    await expectSees(asRed)
    expect((await search(blue, codeword("red", "INTERNAL"))).map((e) => e.knowledgeAssetVersionId)).toEqual([red.id])

    expect((await admin.call("DELETE", `/api/admin/knowledge-spaces/${spaces.red}/grants?relation=viewer&kind=USER&subjectId=${blue.id}`)).status).toBe(204)
    await expectSees(blue)
  })

  it("clearance rules too: STANDARD never sees CONFIDENTIAL, until the clearance is raised, and again after it is lowered", async () => {
    const standard = users.find((u) => u.label === "Red/STANDARD")!
    const confidential = seeded.find((s) => s.space === "red" && s.classification === "CONFIDENTIAL")!
    expect(await search(standard, codeword("red", "CONFIDENTIAL"))).toEqual([])
    expect((await standard.call("GET", `/api/citations/${confidential.citationId}/excerpt`)).status).toBe(404)

    expect((await admin.call("PATCH", `/api/admin/users/${standard.id}`, { clearance: "CONFIDENTIAL" })).status).toBe(200)
    await expectSees({ ...standard, clearance: "CONFIDENTIAL" })
    expect((await admin.call("PATCH", `/api/admin/users/${standard.id}`, { clearance: "STANDARD" })).status).toBe(200)
    await expectSees(standard)

    // A classification filter cannot widen anything.
    expect(await search(standard, codeword("red", "CONFIDENTIAL"), { classification: "CONFIDENTIAL" })).toEqual([])
    expect((await catalog(standard, { classification: "CONFIDENTIAL" })).filter((e) => seeded.some((s) => s.id === e.knowledgeVersionId))).toEqual([])
  })

  it("explanation (SOURCE and KNOWLEDGE_ASSET) agrees with visibility for users x classifications x spaces", async () => {
    let allowed = 0
    let denied = 0
    for (const user of users) {
      for (const source of seeded) {
        const expected = visible(user, source)
        for (const [resourceType, resourceId] of [["SOURCE", source.id], ["KNOWLEDGE_ASSET", source.knowledgeAssetId]] as const) {
          const explanation = await admin.call("POST", "/api/admin/access/explain", { userId: user.id, resourceType, resourceId })
          const what = `${user.label} ${resourceType} ${source.space}/${source.classification}`
          expect(explanation.status, `${what}: ${JSON.stringify(explanation.body)}`).toBe(200)
          expect(explanation.body.state, what).toBe(expected ? "ALLOWED" : "DENIED")
          expect(explanation.body.resource).toMatchObject({ id: resourceId, type: resourceType, classification: source.classification })
          if (expected) {
            allowed++
            expect(explanation.body.blockedBy).toEqual([])
          } else {
            denied++
            const branch = spaceVisible(user, source.space) ? "CLASSIFICATION" : "GRANT"
            expect(explanation.body.blockedBy[0].branch, what).toBe(branch)
            expect(explanation.body.reasonCode, what).toBe(branch === "GRANT" ? "NO_GRANT" : "CLEARANCE_TOO_LOW")
          }
        }
      }
    }
    expect(allowed).toBeGreaterThan(20)
    expect(denied).toBeGreaterThan(20)
  })

  it("uploads need contributor access and a clearance that reaches the classification", async () => {
    const user = users.find((u) => u.label === "Red/STANDARD")!
    expectProblemReply(await upload(user, { spaceId: spaces.vault!, name: "x.txt", bytes: "hello vault" }), 404, "KNOWLEDGE_SPACE_NOT_FOUND")
    expectProblemReply(await upload(user, { spaceId: spaces.red!, name: "x.txt", bytes: "hello red" }), 403, "NOT_A_CONTRIBUTOR")
    await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "contributor", kind: "USER", subjectId: user.id })
    expectProblemReply(await upload(user, { spaceId: spaces.red!, name: "x.txt", bytes: "hello red", classification: "CONFIDENTIAL" }), 403, "CLASSIFICATION_ABOVE_CLEARANCE")
    const own = await upload(user, { spaceId: spaces.red!, name: "x.txt", bytes: "hello red", classification: "INTERNAL" })
    expect(own.status).toBe(201)
    // Deleting it again keeps the other tests' counts exact.
    expect((await user.call("DELETE", `/api/sources/${own.body.id}`)).status).toBe(200)
    await admin.call("DELETE", `/api/admin/knowledge-spaces/${spaces.red}/grants?relation=contributor&kind=USER&subjectId=${user.id}`)
  })
})
