import canonicalize from "canonicalize"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAsset, draftOf, ok, type Person, problem, promptPayload, startWorld, type World } from "./support"

/**
 * The governed lifecycle over HTTP: create, edit under lockVersion, submit, review (self-approval refused, the
 * policy's approvals counted), release (semver, immutable), withdraw, roles and ownership, the revision diff,
 * and who sees what (404 for those who may not).
 */

const digestOf = (content: { title: string; summary: string; classification: string; schemaVersion: string; payload: string }) =>
  "sha256:" + createHash("sha256").update(canonicalize({
    title: content.title, summary: content.summary, classification: content.classification, schemaVersion: content.schemaVersion, payload: JSON.parse(content.payload)
  })!).digest("hex")

describe("asset lifecycle over HTTP", { timeout: 240_000 }, () => {
  let world: World
  let author: Person
  let editor: Person
  let reviewer: Person
  let secondReviewer: Person
  let viewer: Person
  let outsider: Person
  let governor: Person
  let manager: Person
  let asset: Record<string, any>

  beforeAll(async () => {
    world = await startWorld()
    author = await world.person("author@example.com", { roles: ["ASSET_REVIEWER"] })
    editor = await world.person("editor@example.com")
    reviewer = await world.person("reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    secondReviewer = await world.person("second@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    viewer = await world.person("viewer@example.com", { relation: "viewer" })
    outsider = await world.person("outsider@example.com", { relation: null })
    governor = await world.person("governor@example.com", { relation: "viewer", roles: ["KNOWLEDGE_ADMIN"] })
    manager = await world.person("manager@example.com", { relation: "manager" })
  })
  afterAll(async () => world.server.dispose())

  it("creates an asset: 201, the creator owns it, DRAFT_ONLY and PRIVATE", async () => {
    asset = await createAsset(author, { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident-summary", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload()) })
    expect(asset).toMatchObject({ type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident-summary", portfolioState: "DRAFT_ONLY", sharingState: "PRIVATE", ownerUserId: author.id, authorizationReady: true })
    expect(asset.draft.lockVersion).toBe(1)
    expect(asset.draft.payload).toBe(JSON.stringify(promptPayload()))
    expect(asset.roleAssignments).toMatchObject([{ principalType: "USER", principalId: author.id, role: "OWNER" }])
    expect(asset.ownershipHealth).toEqual({ ownerPresent: true, backupOwnerPresent: false, orphaned: false, continuityAtRisk: true })
  })

  it("refuses a duplicate slug (409), a viewer's create (403) and an unseen space (404)", async () => {
    const body = { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident-summary", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload()) }
    await problem(author.call("POST", "/api/assets", body), 409, "ASSET_SLUG_TAKEN")
    await problem(viewer.call("POST", "/api/assets", { ...body, slug: "other" }), 403, "NOT_A_CONTRIBUTOR")
    await problem(outsider.call("POST", "/api/assets", { ...body, slug: "other" }), 404, "KNOWLEDGE_SPACE_NOT_FOUND")
  })

  it("answers 422 with dotted paths for an invalid payload", async () => {
    const bad = promptPayload({ variables: [{ name: "1bad", type: "TEXT", required: true, sensitive: false }], userTemplate: "Hello {{who}}" })
    const reply = await problem(author.call("POST", "/api/assets", { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "bad", knowledgeSpaceId: world.spaceId, draft: draftOf(bad) }), 422, "INVALID_ASSET_CONTENT")
    const paths = reply.errors.map((e: any) => e.path)
    expect(paths).toContain("payload.variables.0.name")
    expect(paths).toContain("payload.variables.0.type")
    const undeclared = await problem(author.call("POST", "/api/assets", { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "bad", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload({ userTemplate: "Hello {{who}}" })) }), 422, "INVALID_ASSET_CONTENT")
    expect(undeclared.errors).toEqual([{ path: "payload.userTemplate", message: "uses {{who}}, which is not a declared variable" }])
    const notJson = await problem(author.call("POST", "/api/assets", { type: "WORK_INSTRUCTION", namespace: "ops", slug: "bad", knowledgeSpaceId: world.spaceId, draft: { ...draftOf({}), payload: "{" } }), 422, "INVALID_ASSET_CONTENT")
    expect(notJson.errors).toEqual([{ path: "payload", message: "is not valid JSON" }])
    const version = await problem(author.call("POST", "/api/assets", { type: "WORK_INSTRUCTION", namespace: "ops", slug: "bad", knowledgeSpaceId: world.spaceId, draft: draftOf({}, { schemaVersion: "9" }) }), 422, "INVALID_ASSET_CONTENT")
    expect(version.errors[0].path).toBe("schemaVersion")
    const steps = await problem(author.call("POST", "/api/assets", { type: "WORK_INSTRUCTION", namespace: "ops", slug: "bad", knowledgeSpaceId: world.spaceId, draft: draftOf({ purpose: "p", audience: "a", completionOutcome: "c", responsibleRole: "r", steps: [{ key: "k", title: "" }] }) }), 422, "INVALID_ASSET_CONTENT")
    expect(steps.errors.map((e: any) => e.path)).toEqual(expect.arrayContaining(["payload.steps.0.title", "payload.steps.0.instruction"]))
  })

  it("shows a DRAFT_ONLY asset only to its owners, editors, reviewers and curators", async () => {
    await problem(viewer.call("GET", `/api/assets/${asset.id}`), 404, "ASSET_NOT_FOUND")
    await problem(outsider.call("GET", `/api/assets/${asset.id}`), 404, "ASSET_NOT_FOUND")
    expect((await ok(reviewer.call("GET", `/api/assets/${asset.id}`))).draft).not.toBeNull()
    expect((await ok(viewer.call("GET", "/api/assets"))).map((a: any) => a.id)).not.toContain(asset.id)
    expect((await ok(author.call("GET", "/api/assets?q=incident&type=PROMPT_TEMPLATE"))).map((a: any) => a.id)).toEqual([asset.id])
    expect(await ok(author.call("GET", "/api/assets?type=WORK_INSTRUCTION"))).toEqual([])
  })

  it("edits the draft under lockVersion: a stale version is 409; a contributor without a role is 403", async () => {
    const edited = await ok(author.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(promptPayload(), { title: "Incident summary v2" }), lockVersion: 1 }))
    expect(edited.draft).toMatchObject({ lockVersion: 2, title: "Incident summary v2", editedByUserId: author.id })
    await problem(author.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(promptPayload()), lockVersion: 1 }), 409, "LOCK_VERSION_CONFLICT")
    await problem(editor.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(promptPayload()), lockVersion: 2 }), 404, "ASSET_NOT_FOUND")
    await ok(author.call("POST", `/api/assets/${asset.id}/role-assignments`, { principalType: "USER", principalId: editor.id, role: "EDITOR" }))
    const byEditor = await ok(editor.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(promptPayload()), lockVersion: 2 }))
    expect(byEditor.draft.lockVersion).toBe(3)
  })

  it("lets exactly one of 50 concurrent writes with the same lockVersion win", async () => {
    const current = (await ok(author.call("GET", `/api/assets/${asset.id}`))).draft.lockVersion as number
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, i) => author.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(promptPayload(), { title: `Concurrent ${i}` }), lockVersion: current }))
    )
    const statuses = replies.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409)).toHaveLength(49)
    const winner = replies.find((r) => r.status === 200)!.body
    const after = await ok(author.call("GET", `/api/assets/${asset.id}`))
    expect(after.draft.lockVersion).toBe(current + 1)
    expect(after.draft.title).toBe(winner.draft.title)
  })

  let revisionId: string
  let reviewId: string

  it("submits: an immutable revision with the canonical digest, and a review under the default policy", async () => {
    const lockVersion = (await ok(author.call("GET", `/api/assets/${asset.id}`))).draft.lockVersion
    await problem(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "first", lockVersion: lockVersion - 1 }), 409, "LOCK_VERSION_CONFLICT")
    const submitted = await ok(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "first", lockVersion }), 201)
    expect(submitted.portfolioState).toBe("IN_REVIEW")
    const [revision] = submitted.revisions
    expect(revision).toMatchObject({ sequence: 1, changeNote: "first", createdByUserId: author.id })
    expect(revision.digest).toBe(digestOf(revision))
    expect(revision.digest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(submitted.reviews).toMatchObject([{ revisionId: revision.id, revisionDigest: revision.digest, state: "IN_REVIEW", policyVersion: "default", requiredApprovals: 1, decisions: [] }])
    revisionId = revision.id
    reviewId = submitted.reviews[0].id
  })

  it("refuses illegal moves: release before approval, a second submission, self-approval, a non-reviewer", async () => {
    await problem(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId, versionLabel: "1.0.0" }), 409, "REVISION_NOT_APPROVED")
    const lockVersion = (await ok(author.call("GET", `/api/assets/${asset.id}`))).draft.lockVersion
    await problem(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "again", lockVersion }), 409, "REVIEW_ALREADY_OPEN")
    await problem(author.call("POST", `/api/assets/${asset.id}/reviews/${reviewId}/decisions`, { decision: "APPROVE", comment: "mine" }), 403, "SELF_APPROVAL_FORBIDDEN")
    await problem(editor.call("POST", `/api/assets/${asset.id}/reviews/${reviewId}/decisions`, { decision: "APPROVE", comment: "lgtm" }), 403, "NOT_A_REVIEWER")
    await problem(outsider.call("POST", `/api/assets/${asset.id}/reviews/${reviewId}/decisions`, { decision: "APPROVE", comment: "lgtm" }), 404, "ASSET_NOT_FOUND")
  })

  it("approves, then refuses decisions on the resolved review", async () => {
    const approved = await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${reviewId}/decisions`, { decision: "APPROVE", comment: "clear and safe" }))
    expect(approved.reviews[0]).toMatchObject({ state: "APPROVED", decisions: [{ reviewerUserId: reviewer.id, decision: "APPROVE", comment: "clear and safe" }] })
    expect(approved.reviews[0].resolvedAt).not.toBeNull()
    await problem(secondReviewer.call("POST", `/api/assets/${asset.id}/reviews/${reviewId}/decisions`, { decision: "REJECT", comment: "late" }), 409, "REVIEW_RESOLVED")
  })

  let firstRelease: Record<string, any>

  it("releases the approved revision: 201, semver, the revision's digest; viewers then see releases only", async () => {
    await problem(editor.call("POST", `/api/assets/${asset.id}/releases`, { revisionId, versionLabel: "1.0.0" }), 403, "ASSET_ROLE_REQUIRED")
    await problem(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId, versionLabel: "v1" }), 422, "INVALID_VERSION_LABEL")
    const released = await ok(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId, versionLabel: "1.0.0" }), 201)
    expect(released).toMatchObject({ portfolioState: "RELEASED", sharingState: "SHARED" })
    firstRelease = released.releases[0]
    expect(firstRelease).toMatchObject({ revisionId, versionLabel: "1.0.0", publicationMode: "REVIEWED", availability: "AVAILABLE", digest: released.revisions[0].digest, payload: released.revisions[0].payload })
    await problem(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId, versionLabel: "1.0.1" }), 409, "REVISION_ALREADY_RELEASED")

    const seen = await ok(viewer.call("GET", `/api/assets/${asset.id}`))
    expect(seen).toMatchObject({ draft: null, revisions: [], reviews: [] })
    expect(seen.releases.map((r: any) => r.id)).toEqual([firstRelease.id])
    const listed = await ok(viewer.call("GET", "/api/assets"))
    expect(listed.map((a: any) => a.id)).toEqual([asset.id])
    await problem(outsider.call("GET", `/api/assets/${asset.id}`), 404, "ASSET_NOT_FOUND")
    expect(await ok(outsider.call("GET", "/api/assets"))).toEqual([])
  })

  it("requires versions greater than every earlier release, and never changes a released version", async () => {
    const lockVersion = (await ok(author.call("GET", `/api/assets/${asset.id}`))).draft.lockVersion
    const changed = promptPayload({ objective: "Summarize an incident for the board" })
    const edited = await ok(author.call("PUT", `/api/assets/${asset.id}/draft`, { ...draftOf(changed, { title: "Board summary" }), lockVersion }))
    const submitted = await ok(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "for the board", lockVersion: edited.draft.lockVersion }), 201)
    const review = submitted.reviews.at(-1)
    const revision = submitted.revisions.at(-1)
    expect(submitted.portfolioState).toBe("RELEASED")

    const diff = await ok(reviewer.call("GET", `/api/assets/${asset.id}/revisions/${revision.id}/diff`))
    expect(diff).toMatchObject({ baseReleaseId: firstRelease.id, baseVersionLabel: "1.0.0", baseDigest: firstRelease.digest, revisionDigest: revision.digest })
    expect(diff.changes).toEqual(expect.arrayContaining([
      { path: "payload.objective", change: "CHANGED", before: "Summarize an incident for executives", after: "Summarize an incident for the board" },
      expect.objectContaining({ path: "title", change: "CHANGED", after: "Board summary" })
    ]))
    expect(diff.patch).toContain('-    "objective": "Summarize an incident for executives"')
    expect(diff.patch).toContain('+    "objective": "Summarize an incident for the board"')
    await problem(viewer.call("GET", `/api/assets/${asset.id}/revisions/${revision.id}/diff`), 404, "REVISION_NOT_FOUND")

    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${review.id}/decisions`, { decision: "APPROVE", comment: "ok" }))
    await problem(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: revision.id, versionLabel: "1.0.0" }), 409, "VERSION_NOT_GREATER")
    await problem(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: revision.id, versionLabel: "0.9.0" }), 409, "VERSION_NOT_GREATER")
    const second = await ok(author.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: revision.id, versionLabel: "1.1.0" }), 201)
    const again = second.releases.find((r: any) => r.id === firstRelease.id)
    expect(again.payload).toBe(firstRelease.payload)
    expect(again.digest).toBe(firstRelease.digest)
    expect(again.title).toBe(firstRelease.title)
  })

  it("withdraws with a reason; emergency withdrawal needs assets.govern and names the owners to notify", async () => {
    await problem(author.call("POST", `/api/assets/${asset.id}/withdrawal`, { releaseId: firstRelease.id, reason: "" }), 400, "VALIDATION_FAILED")
    await problem(editor.call("POST", `/api/assets/${asset.id}/withdrawal`, { releaseId: firstRelease.id, reason: "outdated" }), 403, "ASSET_ROLE_REQUIRED")
    const withdrawn = await ok(author.call("POST", `/api/assets/${asset.id}/withdrawal`, { releaseId: firstRelease.id, reason: "outdated" }))
    const release = withdrawn.releases.find((r: any) => r.id === firstRelease.id)
    expect(release.availability).toBe("WITHDRAWN")
    expect(release.availabilityHistory.map((h: any) => [h.availability, h.reason])).toEqual([["AVAILABLE", "Released 1.0.0 after review"], ["WITHDRAWN", "outdated"]])
    await problem(author.call("POST", `/api/assets/${asset.id}/withdrawal`, { releaseId: firstRelease.id, reason: "again" }), 409, "RELEASE_NOT_AVAILABLE")

    const latest = withdrawn.releases.find((r: any) => r.versionLabel === "1.1.0")
    await problem(author.call("POST", `/api/assets/${asset.id}/emergency-withdrawal`, { releaseId: latest.id, reason: "leak" }), 403, "PERMISSION_DENIED")
    const emergency = await ok(governor.call("POST", `/api/assets/${asset.id}/emergency-withdrawal`, { releaseId: latest.id, reason: "contains a customer name" }))
    expect(emergency.releases.find((r: any) => r.id === latest.id).availability).toBe("EMERGENCY_WITHDRAWN")
    expect(emergency.portfolioState).toBe("WITHDRAWN")
    expect(emergency.sharingState).toBe("PRIVATE")
    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${asset.id}`))
    const entry = audit.items.find((e: any) => e.action === "asset.release.emergency_withdraw")
    expect(entry.details.notifyOwnerUserIds).toEqual([author.id])
    expect(entry.details.reason).toBe("contains a customer name")
  })

  it("counts the space policy's approvals, refuses a second decision by one reviewer, and allows direct releases where the policy does", async () => {
    await problem(author.call("PUT", `/api/asset-policies/${world.spaceId}`, { requiredApprovals: 2, directReleaseAllowed: true, version: 0 }), 403, "ASSET_ROLE_REQUIRED")
    const policy = await ok(manager.call("PUT", `/api/asset-policies/${world.spaceId}`, { requiredApprovals: 2, directReleaseAllowed: true, version: 0 }))
    expect(policy).toMatchObject({ requiredApprovals: 2, directReleaseAllowed: true, version: 1, policyVersion: `${world.spaceId}@1` })
    await problem(manager.call("PUT", `/api/asset-policies/${world.spaceId}`, { requiredApprovals: 3, directReleaseAllowed: true, version: 0 }), 409, "LOCK_VERSION_CONFLICT")
    expect(await ok(viewer.call("GET", `/api/asset-policies/${world.spaceId}`))).toMatchObject({ version: 1 })

    const lockVersion = (await ok(author.call("GET", `/api/assets/${asset.id}`))).draft.lockVersion
    const submitted = await ok(author.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "third", lockVersion }), 201)
    const review = submitted.reviews.at(-1)
    expect(review).toMatchObject({ policyVersion: `${world.spaceId}@1`, requiredApprovals: 2 })
    const once = await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${review.id}/decisions`, { decision: "APPROVE", comment: "one" }))
    expect(once.reviews.at(-1).state).toBe("IN_REVIEW")
    await problem(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${review.id}/decisions`, { decision: "APPROVE", comment: "twice" }), 409, "DUPLICATE_DECISION")
    const twice = await ok(secondReviewer.call("POST", `/api/assets/${asset.id}/reviews/${review.id}/decisions`, { decision: "APPROVE", comment: "two" }))
    expect(twice.reviews.at(-1).state).toBe("APPROVED")

    const direct = await ok(author.call("POST", `/api/assets/${asset.id}/direct-releases`, { versionLabel: "2.0.0", changeNote: "hotfix", lockVersion }), 201)
    expect(direct.releases.at(-1)).toMatchObject({ versionLabel: "2.0.0", publicationMode: "DIRECT", availability: "AVAILABLE" })
    expect(direct.portfolioState).toBe("RELEASED")
    await ok(manager.call("PUT", `/api/asset-policies/${world.spaceId}`, { requiredApprovals: 1, directReleaseAllowed: false, version: 1 }))
    await problem(author.call("POST", `/api/assets/${asset.id}/direct-releases`, { versionLabel: "3.0.0", changeNote: "x", lockVersion }), 403, "DIRECT_RELEASE_NOT_ALLOWED")
  })

  it("keeps role windows and ownership health; a deactivation shows the assets it orphans", async () => {
    const until = new Date(Date.now() + 365 * 24 * 3600 * 1000).toISOString()
    await problem(author.call("POST", `/api/assets/${asset.id}/role-assignments`, { principalType: "USER", principalId: "00000000-0000-4000-8000-000000000001", role: "BACKUP_OWNER" }), 422, "INVALID_ROLE_ASSIGNMENT")
    const withBackup = await ok(author.call("POST", `/api/assets/${asset.id}/role-assignments`, { principalType: "USER", principalId: editor.id, role: "BACKUP_OWNER", validUntil: until }))
    expect(withBackup.ownershipHealth).toEqual({ ownerPresent: true, backupOwnerPresent: true, orphaned: false, continuityAtRisk: false })
    const orphaned = await ok(world.admin("GET", `/api/admin/users/${author.id}/orphaned-assets`))
    expect(orphaned).toEqual([])
    const ownerAssignment = withBackup.roleAssignments.find((a: any) => a.role === "OWNER")
    const backupAssignment = withBackup.roleAssignments.find((a: any) => a.role === "BACKUP_OWNER")
    await ok(author.call("DELETE", `/api/assets/${asset.id}/role-assignments/${backupAssignment.id}`))
    expect(await ok(world.admin("GET", `/api/admin/users/${author.id}/orphaned-assets`))).toEqual([{ assetId: asset.id, namespace: "ops", slug: "incident-summary", title: expect.any(String), roles: ["OWNER"] }])
    await ok(world.admin("PATCH", `/api/admin/users/${author.id}`, { active: false }))
    const afterDeactivation = await ok(reviewer.call("GET", `/api/assets/${asset.id}`))
    expect(afterDeactivation.ownershipHealth).toEqual({ ownerPresent: false, backupOwnerPresent: false, orphaned: true, continuityAtRisk: true })
    expect(afterDeactivation.authorizationReady).toBe(false)
    expect(ownerAssignment.principalId).toBe(author.id)
    // A curator adopts the orphaned asset.
    const curator = await world.person("curator@example.com", { relation: "curator" })
    const adopted = await ok(curator.call("POST", `/api/assets/${asset.id}/role-assignments`, { principalType: "USER", principalId: curator.id, role: "OWNER" }))
    expect(adopted.ownershipHealth.ownerPresent).toBe(true)
  })
})
