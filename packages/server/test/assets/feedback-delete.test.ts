import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAsset, draftOf, ok, type Person, problem, workInstructionPayload, startWorld, type World } from "./support"

/**
 * Issue 33.11 and 33.6: asset feedback in the one vocabulary (sentiment HELPFUL | UNHELPFUL, `rating` and
 * NOT_HELPFUL still accepted), read back by the asset's owners with GET /api/assets/{assetId}/feedback; and
 * DELETE /api/assets/{assetId} for an asset created by mistake, never once it has a release.
 */

describe("asset feedback and deletion", { timeout: 240_000 }, () => {
  let world: World
  let owner: Person
  let reviewer: Person
  let viewer: Person
  let outsider: Person
  let editor: Person
  let released: { assetId: string; releaseId: string }

  beforeAll(async () => {
    world = await startWorld()
    owner = await world.person("fb-owner@example.com")
    reviewer = await world.person("fb-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    viewer = await world.person("fb-viewer@example.com", { relation: "viewer" })
    outsider = await world.person("fb-outsider@example.com", { relation: null })
    editor = await world.person("fb-editor@example.com")
    const asset = await createAsset(owner, { type: "WORK_INSTRUCTION", namespace: "sre", slug: "pager", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Pager" }) })
    const submitted = await ok(owner.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
    const done = await ok(owner.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), 201)
    released = { assetId: asset.id, releaseId: done.releases[0].id }
  })
  afterAll(async () => world.server.dispose())

  const give = (who: Person, body: Record<string, unknown>) =>
    who.call("POST", `/api/assistant/tools/assets/${released.assetId}/releases/${released.releaseId}/feedback`, body)

  it("takes sentiment HELPFUL | UNHELPFUL, and the deprecated rating and NOT_HELPFUL as aliases", async () => {
    await ok(give(viewer, { sentiment: "HELPFUL", comment: "clear" }), 201)
    await ok(give(viewer, { sentiment: "UNHELPFUL" }), 201)
    await ok(give(viewer, { rating: "NOT_HELPFUL", comment: "old client" }), 201)
    await ok(give(viewer, { rating: "HELPFUL" }), 201)
    const none = await problem(give(viewer, { comment: "no verdict" }), 400, "VALIDATION_FAILED")
    expect(JSON.stringify(none.errors)).toContain("sentiment")
    await problem(give(viewer, { sentiment: "MEH" }), 400, "VALIDATION_FAILED")
    await problem(give(outsider, { sentiment: "HELPFUL" }), 404, "ASSET_NOT_FOUND")
  })

  it("lets owners read the feedback back, newest first, paged, by release; others get 403 or 404", async () => {
    const read = await ok(owner.call("GET", `/api/assets/${released.assetId}/feedback`))
    expect(read.nextCursor).toBeNull()
    expect(read.items.map((item: any) => [item.sentiment, item.comment])).toEqual([["HELPFUL", ""], ["UNHELPFUL", "old client"], ["UNHELPFUL", ""], ["HELPFUL", "clear"]])
    expect(Object.keys(read.items[0]).sort()).toEqual(["comment", "createdAt", "id", "releaseId", "sentiment"])
    expect(read.items.every((item: any) => item.releaseId === released.releaseId)).toBe(true)
    // Paging: 55 more, so two pages of 50 and 9; no row twice, none lost.
    for (let i = 0; i < 55; i++) await ok(give(viewer, { sentiment: i % 2 ? "HELPFUL" : "UNHELPFUL", comment: `n${i}` }), 201)
    const first = await ok(owner.call("GET", `/api/assets/${released.assetId}/feedback`))
    expect(first.items).toHaveLength(50)
    const second = await ok(owner.call("GET", `/api/assets/${released.assetId}/feedback?cursor=${first.nextCursor}`))
    expect(second.items).toHaveLength(9)
    expect(second.nextCursor).toBeNull()
    expect(new Set([...first.items, ...second.items].map((item: any) => item.id)).size).toBe(59)
    expect((await ok(owner.call("GET", `/api/assets/${released.assetId}/feedback?releaseId=00000000-0000-4000-8000-000000000000`))).items).toEqual([])
    await problem(owner.call("GET", `/api/assets/${released.assetId}/feedback?cursor=forged`), 400, "INVALID_CURSOR")
    await problem(viewer.call("GET", `/api/assets/${released.assetId}/feedback`), 403, "ASSET_ROLE_REQUIRED")
    await problem(outsider.call("GET", `/api/assets/${released.assetId}/feedback`), 404, "ASSET_NOT_FOUND")
    // Who gave feedback is not part of what owners read.
    expect(JSON.stringify(first)).not.toContain(viewer.id)
  })

  it("deletes a never-released asset for its owner (204), refuses others (403/404) and released assets (409)", async () => {
    const draft = await createAsset(owner, { type: "WORK_INSTRUCTION", namespace: "sre", slug: "by-mistake", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Oops" }) })
    await ok(owner.call("POST", `/api/assets/${draft.id}/role-assignments`, { principalType: "USER", principalId: editor.id, role: "EDITOR" }))
    await problem(editor.call("DELETE", `/api/assets/${draft.id}`), 403, "ASSET_ROLE_REQUIRED")
    await problem(outsider.call("DELETE", `/api/assets/${draft.id}`), 404, "ASSET_NOT_FOUND")
    const deleted = await owner.call("DELETE", `/api/assets/${draft.id}`)
    expect(deleted.status).toBe(204)
    await problem(owner.call("GET", `/api/assets/${draft.id}`), 404, "ASSET_NOT_FOUND")
    await problem(owner.call("DELETE", `/api/assets/${draft.id}`), 404, "ASSET_NOT_FOUND")
    // The slug is free again.
    await createAsset(owner, { type: "WORK_INSTRUCTION", namespace: "sre", slug: "by-mistake", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Again" }) })
    const refused = await problem(owner.call("DELETE", `/api/assets/${released.assetId}`), 409, "ASSET_HAS_RELEASES")
    expect(refused.detail).toContain("withdraw")
    await ok(owner.call("GET", `/api/assets/${released.assetId}`))
    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${draft.id}`))
    expect(audit.items.map((e: any) => e.action)).toContain("asset.delete")
  })
})
