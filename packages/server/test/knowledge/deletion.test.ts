import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { indexStatistics, type InspectableServer, startInspectableServer } from "./inspect"
import {
  bytesOf,
  catalog,
  client,
  type Client,
  eventually,
  expectProblemReply,
  filler,
  getRaw,
  ingested,
  listAll,
  search,
  sha256,
  userClient
} from "./support"

/**
 * Deleting a source hides it from every read path at once (SourceDeletion PENDING); a job then purges
 * its row, chunks and unreferenced blob. Deleting the newest version brings the previous ready one back.
 */
describe("source deletion", { timeout: 120_000 }, () => {
  let server: InspectableServer
  let admin: Client
  let space: string

  const rowsOf = (sourceId: string, digest: string) =>
    server.sql((sql) =>
      sql<{ sources: number; chunks: number; blobs: number }>`
        SELECT (SELECT count(*) FROM sources WHERE id = ${sourceId})::int AS sources,
               (SELECT count(*) FROM chunks WHERE source_id = ${sourceId})::int AS chunks,
               (SELECT count(*) FROM blobs WHERE sha256 = ${digest})::int AS blobs`
    ).then((rows) => rows[0]!)

  const expectStatisticsConsistent = async () => {
    const { actual, stored } = await indexStatistics(server)
    expect(stored.corpus).toEqual(actual.corpus)
    expect(stored.terms).toEqual(actual.terms)
    expect(stored.partitions).toEqual(actual.partitions)
    expect(stored.postings).toEqual(actual.postings)
  }

  beforeAll(async () => {
    server = await startInspectableServer()
    admin = client(server.url, server.adminToken)
    space = (await admin.call("POST", "/api/admin/knowledge-spaces", { key: "records", name: "Records" })).body.id
  })
  afterAll(() => server?.dispose())

  it("hides a deleted source at once from search, catalog, citations, the list and content", async () => {
    const bytes = `# Retention\n\nQuillback invoices are retained for eleven years. ${filler("retention", 4)}`
    const source = await ingested(admin, { spaceId: space, name: "retention.md", bytes, type: "text/markdown" })
    const [hit] = await search(admin, "quillback invoices retained")
    expect(hit?.knowledgeAssetVersionId).toBe(source.id)
    expect((await admin.call("GET", `/api/citations/${hit!.citationId}/excerpt`)).status).toBe(200)

    const deletion = await admin.call("DELETE", `/api/sources/${source.id}`)
    expect(deletion.status).toBe(200)
    expect(deletion.body).toMatchObject({
      knowledgeAssetId: source.knowledgeAssetId,
      knowledgeAssetVersionId: source.id,
      status: "PENDING",
      sourceAclSnapshotId: null,
      normalizedRecordId: expect.any(String),
      rawSourceObjectId: expect.any(String)
    })

    // At once: no waiting for the purge.
    expect(await search(admin, "quillback invoices retained")).toEqual([])
    expect((await catalog(admin)).some((e) => e.knowledgeAssetId === source.knowledgeAssetId)).toBe(false)
    expectProblemReply(await admin.call("GET", `/api/citations/${hit!.citationId}/excerpt`), 404, "CITATION_NOT_FOUND")
    expect((await getRaw(admin, `/api/citations/${hit!.citationId}/content`)).status).toBe(404)
    expectProblemReply(await admin.call("GET", `/api/sources/${source.id}`), 404, "SOURCE_NOT_FOUND")
    expect((await getRaw(admin, `/api/sources/${source.id}/content`)).status).toBe(404)
    expect((await listAll(admin)).items.some((s) => s.id === source.id)).toBe(false)
    expectProblemReply(await admin.call("DELETE", `/api/sources/${source.id}`), 404, "SOURCE_NOT_FOUND")

    // Afterwards the purge job removes the row, its chunks and the blob nothing else uses.
    await eventually(() => rowsOf(source.id, sha256(bytesOf(bytes))), (r) => r.sources === 0 && r.chunks === 0 && r.blobs === 0, "purge")
    expect((await listAll(admin)).items.some((s) => s.id === source.id)).toBe(false)
    expect((await getRaw(admin, `/api/sources/${source.id}/content`)).status).toBe(404)
    await expectStatisticsConsistent()
  })

  it("keeps a blob another source still uses", async () => {
    const bytes = `Shared appendix: the kittiwake procedure has four steps. ${filler("appendix", 3)}`
    const one = await ingested(admin, { spaceId: space, name: "appendix-a.txt", bytes, type: "text/plain" })
    const two = await ingested(admin, { spaceId: space, name: "appendix-b.txt", bytes, type: "text/plain" })
    expect(one.knowledgeAssetId).not.toBe(two.knowledgeAssetId)
    expect((await admin.call("DELETE", `/api/sources/${one.id}`)).status).toBe(200)
    await eventually(() => rowsOf(one.id, sha256(bytesOf(bytes))), (r) => r.sources === 0 && r.chunks === 0, "purge")
    expect((await rowsOf(one.id, sha256(bytesOf(bytes)))).blobs).toBe(1)
    const content = await getRaw(admin, `/api/sources/${two.id}/content`)
    expect(content.status).toBe(200)
    expect(await content.text()).toBe(bytes)
    expect((await search(admin, "kittiwake procedure")).map((e) => e.knowledgeAssetVersionId)).toEqual([two.id])
  })

  it("deleting the newest version makes the previous ready version searchable again", async () => {
    const v1 = await ingested(admin, { spaceId: space, name: "fleet.md", type: "text/markdown", bytes: `# Fleet\n\nThe zeppelin allowance is seventeen kroner. ${filler("fleet", 3)}` })
    const v2 = await ingested(admin, { spaceId: space, name: "fleet.md", type: "text/markdown", bytes: `# Fleet\n\nThe hovercraft allowance is nineteen kroner. ${filler("fleet", 3)}` })
    expect(v2).toMatchObject({ knowledgeAssetId: v1.knowledgeAssetId, versionNumber: 2 })
    expect(await search(admin, "zeppelin")).toEqual([])
    const [v2Hit] = await search(admin, "hovercraft")
    expect(v2Hit?.knowledgeAssetVersionId).toBe(v2.id)

    expect((await admin.call("DELETE", `/api/sources/${v2.id}`)).body.status).toBe("PENDING")
    // At once, v1 answers again and v2 does not.
    expect((await search(admin, "zeppelin allowance")).map((e) => e.knowledgeAssetVersionId)).toEqual([v1.id])
    expect(await search(admin, "hovercraft")).toEqual([])
    expectProblemReply(await admin.call("GET", `/api/citations/${v2Hit!.citationId}/excerpt`), 404, "CITATION_NOT_FOUND")
    const entry = (await catalog(admin)).filter((e) => e.knowledgeAssetId === v1.knowledgeAssetId)
    expect(entry).toEqual([expect.objectContaining({ knowledgeVersionId: v1.id, versionNumber: 1 })])
    const fleet = await search(admin, "fleet allowance kroner")
    expect(fleet.filter((e) => e.knowledgeAssetId === v1.knowledgeAssetId).map((e) => e.knowledgeAssetVersionId)).toEqual([v1.id])

    // Still so after the purge.
    await eventually(() => rowsOf(v2.id, v2.contentDigest), (r) => r.sources === 0, "purge of v2")
    expect((await search(admin, "zeppelin allowance")).map((e) => e.knowledgeAssetVersionId)).toEqual([v1.id])
    await expectStatisticsConsistent()

    // Deleting the last version removes the asset from the catalog; its title is free again.
    expect((await admin.call("DELETE", `/api/sources/${v1.id}`)).status).toBe(200)
    expect(await search(admin, "zeppelin")).toEqual([])
    expect((await catalog(admin)).some((e) => e.knowledgeAssetId === v1.knowledgeAssetId)).toBe(false)
    const again = await ingested(admin, { spaceId: space, name: "fleet.md", type: "text/markdown", bytes: `# Fleet\n\nThe airship allowance is twenty kroner. ${filler("fleet", 3)}` })
    expect(again.knowledgeAssetId).not.toBe(v1.knowledgeAssetId)
    expect(again.versionNumber).toBe(1)
    await eventually(() => rowsOf(v1.id, v1.contentDigest), (r) => r.sources === 0, "purge of v1")
    await expectStatisticsConsistent()
  })

  it("deleting an older version leaves the newest one served", async () => {
    const v1 = await ingested(admin, { spaceId: space, name: "canteen.txt", type: "text/plain", bytes: `The canteen opens at seven. ${filler("canteen", 2)}` })
    const v2 = await ingested(admin, { spaceId: space, name: "canteen.txt", type: "text/plain", bytes: `The canteen opens at eight. ${filler("canteen", 2)}` })
    expect((await admin.call("DELETE", `/api/sources/${v1.id}`)).status).toBe(200)
    expect((await search(admin, "canteen opens")).filter((e) => e.knowledgeAssetId === v2.knowledgeAssetId).map((e) => e.knowledgeAssetVersionId)).toEqual([v2.id])
    expect((await catalog(admin)).filter((e) => e.knowledgeAssetId === v2.knowledgeAssetId)).toEqual([expect.objectContaining({ knowledgeVersionId: v2.id, versionNumber: 2 })])
    await eventually(() => rowsOf(v1.id, v1.contentDigest), (r) => r.sources === 0, "purge of v1")
    await expectStatisticsConsistent()
  })

  it("only contributors delete; others get 403, and those who cannot see it 404", async () => {
    const source = await ingested(admin, { spaceId: space, name: "guarded.txt", type: "text/plain", bytes: `Guarded note about puffins. ${filler("puffins", 2)}` })
    const department = (await admin.call("POST", "/api/admin/departments", { name: "Ops" })).body.id
    const viewer = await userClient(admin.call, server.url, { email: "viewer@example.com", departmentId: department, clearance: "RESTRICTED" })
    expectProblemReply(await viewer.call("DELETE", `/api/sources/${source.id}`), 404, "SOURCE_NOT_FOUND")
    await admin.call("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation: "viewer", kind: "USER", subjectId: viewer.id })
    expectProblemReply(await viewer.call("DELETE", `/api/sources/${source.id}`), 403, "DELETION_NOT_ALLOWED")
    expect((await viewer.call("GET", `/api/sources/${source.id}`)).body.deletionAllowed).toBe(false)
    expect((await search(viewer, "guarded puffins")).map((e) => e.knowledgeAssetVersionId)).toEqual([source.id])
  })

  it("a contributor deletes what they uploaded, not what colleagues did; a curator deletes any; an uploader no longer contributor none", async () => {
    const department = (await admin.call("POST", "/api/admin/departments", { name: "Writers" })).body.id
    const grant = (relation: string, subjectId: string) =>
      admin.call("POST", `/api/admin/knowledge-spaces/${space}/grants`, { relation, kind: "USER", subjectId })
    const revoke = (relation: string, subjectId: string) =>
      admin.call("DELETE", `/api/admin/knowledge-spaces/${space}/grants?relation=${relation}&kind=USER&subjectId=${subjectId}`)
    const [ann, bob, cat] = await Promise.all(["ann", "bob", "cat"].map((name) =>
      userClient(admin.call, server.url, { email: `${name}@example.com`, departmentId: department, clearance: "CONFIDENTIAL" })))
    for (const user of [ann!, bob!]) expect((await grant("contributor", user.id)).status).toBe(204)
    expect((await grant("curator", cat!.id)).status).toBe(204)
    const note = (who: string, n: number) => ({ spaceId: space, name: `${who}-note-${n}.txt`, type: "text/plain", bytes: `Note ${n} of ${who} about walruses. ${filler("walruses", 2)}`, classification: "INTERNAL" })
    const annFirst = await ingested(ann!, note("ann", 1))
    const annSecond = await ingested(ann!, note("ann", 2))
    const bobs = await ingested(bob!, note("bob", 1))

    // What each one is told matches what they may do.
    expect((await ann!.call("GET", `/api/sources/${annFirst.id}`)).body.deletionAllowed).toBe(true)
    expect((await ann!.call("GET", `/api/sources/${bobs.id}`)).body.deletionAllowed).toBe(false)
    expect((await cat!.call("GET", `/api/sources/${bobs.id}`)).body.deletionAllowed).toBe(true)
    const listedByBob = (await listAll(bob!, { knowledgeSpaceId: space })).items
    expect(listedByBob.find((s) => s.id === bobs.id)?.deletionAllowed).toBe(true)
    expect(listedByBob.find((s) => s.id === annFirst.id)?.deletionAllowed).toBe(false)

    // A contributor may not delete a colleague's document, however well they can read it.
    const refused = await bob!.call("DELETE", `/api/sources/${annFirst.id}`)
    expectProblemReply(refused, 403, "DELETION_NOT_ALLOWED")
    expect(refused.body.detail).toMatch(/uploader|curator/)
    expect((await ann!.call("GET", `/api/sources/${annFirst.id}`)).status).toBe(200)
    // Their own, yes.
    expect((await ann!.call("DELETE", `/api/sources/${annFirst.id}`)).status).toBe(200)
    // A curator deletes anyone's.
    expect((await cat!.call("DELETE", `/api/sources/${bobs.id}`)).status).toBe(200)
    // An uploader who is no longer a contributor (only a viewer) deletes nothing, not even their own.
    expect((await revoke("contributor", ann!.id)).status).toBe(204)
    expect((await grant("viewer", ann!.id)).status).toBe(204)
    const demoted = await ann!.call("DELETE", `/api/sources/${annSecond.id}`)
    expectProblemReply(demoted, 403, "DELETION_NOT_ALLOWED")
    expect(demoted.body.detail).toMatch(/no longer a contributor/)
    expect((await ann!.call("GET", `/api/sources/${annSecond.id}`)).body.deletionAllowed).toBe(false)
    // The space's manager (the admin created it) may.
    expect((await admin.call("DELETE", `/api/sources/${annSecond.id}`)).status).toBe(200)
    await expectStatisticsConsistent()
  })
})
