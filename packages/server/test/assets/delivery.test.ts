import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAsset, draftOf, ok, type Person, problem, promptPayload, startWorld, workInstructionPayload, type World } from "./support"

/**
 * Delivery of released versions: work instructions with acknowledgement, prompt rendering (variables checked,
 * HTML not escaped, sensitive values in no log, audit entry or answer beyond the render itself), capability
 * packs with their journey (accessGap for items the caller cannot use, only accessible items completed), and
 * withdrawn releases answered 410. Who cannot see the asset's space gets 404 everywhere.
 */

const SECRET = "customer-zebra-4711@example.com"

describe("asset delivery", { timeout: 240_000 }, () => {
  let world: World
  let owner: Person
  let reviewer: Person
  let viewer: Person
  let outsider: Person
  let otherSpaceId: string
  const captured: Array<string> = []
  const restore: Array<() => void> = []

  /** Creates, submits, approves and releases an asset; answers its id and release id. */
  const released = async (who: Person, body: Record<string, unknown>, versionLabel = "1.0.0") => {
    const asset = await createAsset(who, body)
    const submitted = await ok(who.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
    const done = await ok(who.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel }), 201)
    return { assetId: asset.id as string, releaseId: done.releases[0].id as string, digest: done.releases[0].digest as string }
  }

  beforeAll(async () => {
    // Every line the server logs, at debug level, is kept to look for sensitive values.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream)
      stream.write = ((chunk: any, ...rest: any[]) => {
        captured.push(String(chunk))
        return write(chunk, ...rest)
      }) as typeof stream.write
      restore.push(() => (stream.write = write))
    }
    for (const level of ["log", "info", "debug", "warn", "error"] as const) {
      const original = console[level]
      console[level] = (...args: any[]) => {
        captured.push(args.map((a) => (typeof a === "string" ? a : JSON.stringify(a))).join(" "))
      }
      restore.push(() => (console[level] = original))
    }
    world = await startWorld({ logLevel: "debug" })
    owner = await world.person("owner@example.com")
    reviewer = await world.person("reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    viewer = await world.person("viewer@example.com", { relation: "viewer" })
    outsider = await world.person("outsider@example.com", { relation: null })
    otherSpaceId = (await world.admin("POST", "/api/admin/knowledge-spaces", { key: "hidden", name: "Hidden" })).body.id
    await world.admin("POST", `/api/admin/knowledge-spaces/${otherSpaceId}/grants`, { relation: "contributor", kind: "USER", subjectId: owner.id })
    await world.admin("POST", `/api/admin/knowledge-spaces/${otherSpaceId}/grants`, { relation: "viewer", kind: "USER", subjectId: reviewer.id })
  })
  afterAll(async () => {
    restore.forEach((undo) => undo())
    await world.server.dispose()
  })

  it("delivers a work instruction, records the caller's acknowledgement, and stops delivering it once withdrawn", async () => {
    const wi = await released(owner, { type: "WORK_INSTRUCTION", namespace: "sre", slug: "handover", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Handover" }) })
    const path = `/api/assets/${wi.assetId}/releases/${wi.releaseId}/work-instruction`
    const read = await ok(viewer.call("GET", path))
    expect(read).toMatchObject({ assetId: wi.assetId, releaseId: wi.releaseId, releaseDigest: wi.digest, title: "Handover", versionLabel: "1.0.0", acknowledged: false, acknowledgedAt: null })
    expect(read.instruction.steps.map((s: any) => s.key)).toEqual(["announce", "switch"])
    const acknowledged = await ok(viewer.call("POST", `${path}/acknowledgements`))
    expect(acknowledged.acknowledged).toBe(true)
    expect((await ok(viewer.call("POST", `${path}/acknowledgements`))).acknowledgedAt).toBe(acknowledged.acknowledgedAt)
    expect((await ok(owner.call("GET", path))).acknowledged).toBe(false)
    await problem(outsider.call("GET", path), 404, "ASSET_NOT_FOUND")
    await problem(viewer.call("GET", `/api/assets/${wi.assetId}/releases/${wi.releaseId}/pack-definition`), 409, "WRONG_ASSET_TYPE")
    await ok(owner.call("POST", `/api/assets/${wi.assetId}/withdrawal`, { releaseId: wi.releaseId, reason: "replaced" }))
    await problem(viewer.call("GET", path), 410, "RELEASE_WITHDRAWN")
    await problem(viewer.call("POST", `${path}/acknowledgements`), 410, "RELEASE_WITHDRAWN")
    await problem(outsider.call("GET", path), 404, "ASSET_NOT_FOUND")
  })

  it("renders a prompt with its variables checked, HTML left alone, and sensitive values kept out of logs and audit", async () => {
    const prompt = await released(owner, { type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload()) })
    const path = `/api/asset-delivery/${prompt.assetId}/releases/${prompt.releaseId}/prompt-render`
    const invalid = await problem(viewer.call("POST", path, { variables: { incident_id: "42", severity: "SEV9", colour: "red", customer_email: 7 } }), 422, "INVALID_VARIABLES")
    expect(invalid.errors.map((e: any) => e.path).sort()).toEqual(["variables.colour", "variables.customer_email", "variables.date", "variables.incident_id", "variables.severity"])
    expect(JSON.stringify(invalid)).not.toContain("SEV9")

    const rendered = await ok(viewer.call("POST", path, { variables: { incident_id: "INC-42", date: "2026-03-01", severity: "SEV2", customer_email: SECRET } }))
    expect(rendered).toMatchObject({ assetId: prompt.assetId, releaseId: prompt.releaseId, releaseDigest: prompt.digest, sensitiveVariables: ["customer_email"] })
    expect(rendered.systemInstruction).toBe("You write calm, factual summaries for executives.")
    expect(rendered.userPrompt).toBe(`Summarize incident INC-42 of 2026-03-01 at severity SEV2. Customer: ${SECRET}. Use <b>plain</b> words & no jargon.`)
    expect(rendered.inputShapeDigest).toMatch(/^sha256:[0-9a-f]{64}$/)
    const again = await ok(viewer.call("POST", path, { variables: { incident_id: "INC-7", date: "2026-04-01", severity: "SEV1", customer_email: "someone-else@example.com" } }))
    expect(again.inputShapeDigest).toBe(rendered.inputShapeDigest)

    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${prompt.assetId}`))
    const renders = audit.items.filter((e: any) => e.action === "asset.prompt.render")
    expect(renders).toHaveLength(2)
    expect(renders[0].details).toMatchObject({ inputShapeDigest: rendered.inputShapeDigest, variableNames: ["customer_email", "date", "incident_id", "severity"] })
    expect(JSON.stringify(audit)).not.toContain(SECRET)
    expect(captured.join("\n")).not.toContain(SECRET)
    expect(captured.join("\n")).not.toContain("someone-else@example.com")

    await problem(outsider.call("POST", path, { variables: {} }), 404, "ASSET_NOT_FOUND")
    await ok(owner.call("POST", `/api/assets/${prompt.assetId}/withdrawal`, { releaseId: prompt.releaseId, reason: "retired" }))
    await problem(viewer.call("POST", path, { variables: {} }), 410, "RELEASE_WITHDRAWN")
  })

  it("shows a pack's accessGap for items the caller cannot use, completes only accessible items, and reflects withdrawal", async () => {
    const open = await released(owner, { type: "WORK_INSTRUCTION", namespace: "onboarding", slug: "laptop", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Laptop setup" }) })
    const hidden = await released(owner, { type: "WORK_INSTRUCTION", namespace: "onboarding", slug: "vault", knowledgeSpaceId: otherSpaceId, draft: draftOf(workInstructionPayload(), { title: "Vault access" }) })
    const pack = await released(owner, {
      type: "CAPABILITY_PACK",
      namespace: "onboarding",
      slug: "new-sre",
      knowledgeSpaceId: world.spaceId,
      draft: draftOf({
        purpose: "ROLE_ONBOARDING",
        audience: "New SREs",
        prerequisites: ["An account"],
        expectedOutcome: "Ready for on-call",
        completionCriteria: ["Every required item done"],
        reviewDate: "2027-01-31",
        ownerUserId: owner.id,
        items: [
          { itemKey: "laptop", title: "Set up the laptop", kind: "ASSET_RELEASE", assetId: open.assetId, releaseId: open.releaseId, required: true, order: 1 },
          { itemKey: "vault", title: "Get vault access", kind: "ASSET_RELEASE", assetId: hidden.assetId, releaseId: hidden.releaseId, required: false, order: 2 },
          { itemKey: "handbook", title: "Read the handbook", kind: "KNOWLEDGE_VERSION", knowledgeAssetId: "00000000-0000-4000-8000-00000000abcd", versionNumber: 1, required: false, order: 3 }
        ]
      }, { title: "New SRE onboarding" })
    })
    const base = `/api/assets/${pack.assetId}/releases/${pack.releaseId}`
    const definition = await ok(viewer.call("GET", `${base}/pack-definition`))
    expect(definition).toMatchObject({ packAssetId: pack.assetId, packReleaseId: pack.releaseId, purpose: "ROLE_ONBOARDING", owner: expect.any(String), ownerUserId: owner.id, accessGap: true })
    expect(definition.items.map((i: any) => [i.key, i.accessible, i.availability])).toEqual([["laptop", true, "AVAILABLE"], ["vault", false, null], ["handbook", false, null]])
    expect(definition.items[1]).toMatchObject({ versionLabel: null, title: "Get vault access" })
    // The reviewer sees both spaces: only the unknown knowledge version is a gap for them.
    const forReviewer = await ok(reviewer.call("GET", `${base}/pack-definition`))
    expect(forReviewer.items.map((i: any) => i.accessible)).toEqual([true, true, false])

    const journey = await ok(viewer.call("GET", `${base}/pack-journey`))
    expect(journey).toMatchObject({ status: "IN_PROGRESS", accessGap: true, completedAccessibleItems: 0, completedAt: null })
    await problem(viewer.call("PUT", `${base}/pack-progress/vault`, { completed: true }), 403, "PACK_ITEM_INACCESSIBLE")
    await problem(viewer.call("PUT", `${base}/pack-progress/nope`, { completed: true }), 404, "PACK_ITEM_NOT_FOUND")
    const done = await ok(viewer.call("PUT", `${base}/pack-progress/laptop`, { completed: true }))
    expect(done).toMatchObject({ assignmentId: journey.assignmentId, status: "COMPLETED", completedAccessibleItems: 1 })
    expect(done.items[0]).toMatchObject({ key: "laptop", completed: true })
    expect(done.completedAt).not.toBeNull()
    const undone = await ok(viewer.call("PUT", `${base}/pack-progress/laptop`, { completed: false }))
    expect(undone).toMatchObject({ status: "IN_PROGRESS", completedAt: null })

    await ok(owner.call("POST", `/api/assets/${open.assetId}/withdrawal`, { releaseId: open.releaseId, reason: "new laptops" }))
    const afterWithdrawal = await ok(viewer.call("GET", `${base}/pack-definition`))
    expect(afterWithdrawal.items[0]).toMatchObject({ key: "laptop", accessible: false, availability: "WITHDRAWN" })
    await problem(viewer.call("PUT", `${base}/pack-progress/laptop`, { completed: true }), 403, "PACK_ITEM_INACCESSIBLE")
    await problem(outsider.call("GET", `${base}/pack-journey`), 404, "ASSET_NOT_FOUND")
    await problem(outsider.call("GET", `${base}/pack-definition`), 404, "ASSET_NOT_FOUND")
  })
})
