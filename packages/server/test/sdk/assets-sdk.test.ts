import { createLoreClient, isLoreError, type LoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { draftOf, type Person, startWorld, workInstructionPayload, type World } from "../assets/support"

/** The whole governed lifecycle through @lore/sdk: create, edit, submit, review, release, diff, withdraw, roles. */
describe("SDK assets", { timeout: 180_000 }, () => {
  let world: World
  let author: Person
  let reviewer: Person
  let lore: LoreClient
  let review: LoreClient

  beforeAll(async () => {
    world = await startWorld()
    author = await world.person("sdk-author@example.com")
    reviewer = await world.person("sdk-reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    lore = createLoreClient({ baseUrl: world.server.url, token: author.token })
    review = createLoreClient({ baseUrl: world.server.url, token: reviewer.token })
  })
  afterAll(async () => world.server.dispose())

  it("walks an asset from draft to withdrawal", async () => {
    const created = await lore.assets.create({ type: "WORK_INSTRUCTION", namespace: "sre", slug: "pager-handover", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Pager handover" }) })
    expect(created.portfolioState).toBe("DRAFT_ONLY")
    const edited = await lore.assets.updateDraft(created.id, { ...draftOf(workInstructionPayload(), { title: "Pager handover, v1" }), lockVersion: created.draft!.lockVersion })
    const stale = await lore.assets.updateDraft(created.id, { ...draftOf(workInstructionPayload()), lockVersion: created.draft!.lockVersion }).catch((e) => e)
    expect(isLoreError(stale, "LOCK_VERSION_CONFLICT")).toBe(true)

    const submitted = await lore.assets.submit(created.id, { changeNote: "first", lockVersion: edited.draft!.lockVersion })
    const revision = submitted.revisions[0]!
    const reviewCase = submitted.reviews[0]!
    const early = await lore.assets.release(created.id, { revisionId: revision.id, versionLabel: "1.0.0" }).catch((e) => e)
    expect(isLoreError(early, "REVISION_NOT_APPROVED")).toBe(true)
    const selfApproval = await lore.assets.decide(created.id, reviewCase.id, { decision: "APPROVE", comment: "mine" }).catch((e) => e)
    expect(isLoreError(selfApproval, "NOT_A_REVIEWER")).toBe(true)

    const diff = await review.assets.diff(created.id, revision.id)
    expect(diff.baseReleaseId).toBeNull()
    expect(diff.changes.some((c) => c.path === "payload" && c.change === "ADDED")).toBe(true)

    const approved = await review.assets.decide(created.id, reviewCase.id, { decision: "APPROVE", comment: "clear" })
    expect(approved.reviews[0]!.state).toBe("APPROVED")
    const released = await lore.assets.release(created.id, { revisionId: revision.id, versionLabel: "1.0.0" })
    expect(released.releases[0]).toMatchObject({ versionLabel: "1.0.0", digest: revision.digest, availability: "AVAILABLE" })
    expect((await lore.assets.list({ q: "pager" })).map((a) => a.id)).toEqual([created.id])

    const withBackup = await lore.assets.assignRole(created.id, { principalType: "USER", principalId: reviewer.id, role: "BACKUP_OWNER" })
    expect(withBackup.ownershipHealth.backupOwnerPresent).toBe(true)
    const releaseId = released.releases[0]!.id
    const instruction = await review.assets.workInstruction(created.id, releaseId)
    expect(instruction).toMatchObject({ title: "Pager handover, v1", versionLabel: "1.0.0", acknowledged: false })
    expect((await review.assets.acknowledge(created.id, releaseId)).acknowledged).toBe(true)
    const recommended = await review.assets.tools.recommendations({ q: "pager" })
    expect(recommended.recommendations.map((r) => r.releaseId)).toEqual([releaseId])
    expect((await review.assets.tools.workInstruction(created.id, releaseId)).instruction.acknowledged).toBe(true)
    const withdrawn = await lore.assets.withdraw(created.id, { releaseId: released.releases[0]!.id, reason: "superseded" })
    expect(withdrawn.releases[0]!.availability).toBe("WITHDRAWN")
    expect(withdrawn.portfolioState).toBe("WITHDRAWN")
    const gone = await review.assets.workInstruction(created.id, releaseId).catch((e) => e)
    expect(isLoreError(gone, "RELEASE_WITHDRAWN")).toBe(true)
    expect((await review.assets.tools.recommendations({ q: "pager" })).recommendations).toEqual([])
    expect((await lore.assets.policy(world.spaceId)).policyVersion).toBe("default")
  })
})
