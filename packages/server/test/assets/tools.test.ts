import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ingested } from "../knowledge/support"
import { createAsset, draftOf, ok, type Person, problem, promptPayload, startWorld, workInstructionPayload, type World } from "./support"

/**
 * The assistant's asset tools: prompt form, render and run (LOCAL on the default PROMPT_EXECUTION route, the run
 * recorded without its variables), work instruction, pack, fork, and recommendations; each answer has a traceId.
 * Withdrawn releases vanish from recommendations; callers without access to the space see nothing.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const SECRET = "tools-secret-otter@example.com"

describe("assistant asset tools", { timeout: 240_000 }, () => {
  let world: World
  let owner: Person
  let reviewer: Person
  let viewer: Person
  let contributor: Person
  let outsider: Person
  let prompt: { assetId: string; releaseId: string }
  let instruction: { assetId: string; releaseId: string }

  const released = async (body: Record<string, unknown>) => {
    const asset = await createAsset(owner, body)
    const submitted = await ok(owner.call("POST", `/api/assets/${asset.id}/submissions`, { changeNote: "ship", lockVersion: asset.draft.lockVersion }), 201)
    await ok(reviewer.call("POST", `/api/assets/${asset.id}/reviews/${submitted.reviews[0].id}/decisions`, { decision: "APPROVE", comment: "ok" }))
    const done = await ok(owner.call("POST", `/api/assets/${asset.id}/releases`, { revisionId: submitted.revisions[0].id, versionLabel: "1.0.0" }), 201)
    return { assetId: asset.id as string, releaseId: done.releases[0].id as string }
  }

  beforeAll(async () => {
    world = await startWorld()
    owner = await world.person("owner@example.com")
    reviewer = await world.person("reviewer@example.com", { relation: "viewer", roles: ["ASSET_REVIEWER"] })
    viewer = await world.person("viewer@example.com", { relation: "viewer" })
    contributor = await world.person("contributor@example.com")
    outsider = await world.person("outsider@example.com", { relation: null })
    prompt = await released({ type: "PROMPT_TEMPLATE", namespace: "ops", slug: "incident-brief", knowledgeSpaceId: world.spaceId, draft: draftOf(promptPayload(), { title: "Incident brief for executives" }) })
    instruction = await released({ type: "WORK_INSTRUCTION", namespace: "sre", slug: "pager", knowledgeSpaceId: world.spaceId, draft: draftOf(workInstructionPayload(), { title: "Pager rotation" }) })
  })
  afterAll(async () => world.server.dispose())

  const tools = (ref: { assetId: string; releaseId: string }) => `/api/assistant/tools/assets/${ref.assetId}/releases/${ref.releaseId}`

  it("serves the prompt form and renders with a traceId", async () => {
    const form = await ok(viewer.call("GET", `${tools(prompt)}/prompt-form`))
    expect(form.traceId).toMatch(UUID)
    expect(form.release).toMatchObject({ assetId: prompt.assetId, releaseId: prompt.releaseId })
    expect(form.variables.map((v: any) => v.name)).toEqual(["audience_name", "incident_id", "date", "severity", "customer_email"])
    const rendered = await ok(viewer.call("POST", `${tools(prompt)}/prompt-render`, { variables: { incident_id: "INC-1", date: "2026-01-02", severity: "SEV1" } }))
    expect(rendered.traceId).toMatch(UUID)
    expect(rendered.result.userPrompt).toContain("Summarize incident INC-1")
    await problem(viewer.call("GET", `${tools(instruction)}/prompt-form`), 409, "WRONG_ASSET_TYPE")
    await problem(outsider.call("GET", `${tools(prompt)}/prompt-form`), 404, "ASSET_NOT_FOUND")
  })

  it("runs a prompt on the PROMPT_EXECUTION route (LOCAL by default) and records the run without its variables", async () => {
    const run = await ok(viewer.call("POST", `${tools(prompt)}/prompt-run`, { variables: { incident_id: "INC-2", date: "2026-01-03", severity: "SEV2", customer_email: SECRET } }))
    expect(run.traceId).toMatch(UUID)
    expect(run.result).toMatchObject({ runId: run.traceId, assetId: prompt.assetId, releaseId: prompt.releaseId, modelRoute: { gatewayId: "00000000-0000-4000-a000-00000000000a", modelId: "lore-extractive" }, citations: [] })
    expect(typeof run.result.output).toBe("string")
    expect(run.result.durationMillis).toBeGreaterThanOrEqual(0)
    await problem(viewer.call("POST", `${tools(prompt)}/prompt-run`, { variables: {} }), 422, "INVALID_VARIABLES")
    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${prompt.assetId}`))
    const runs = audit.items.filter((e: any) => e.action === "asset.prompt.run")
    expect(runs).toHaveLength(1)
    expect(runs[0].details).toMatchObject({ runId: run.traceId, modelId: "lore-extractive" })
    expect(JSON.stringify(audit)).not.toContain(SECRET)
  })

  it("answers a LOCAL prompt run from the passages on its topic, even with no knowledge requirements (issue 33.7)", async () => {
    await ingested({ url: world.server.url, token: owner.token, call: owner.call }, {
      spaceId: world.spaceId, name: "incident-inc-77.md", type: "text/markdown", title: "INC-77",
      bytes: "# INC-77\n\nIncident INC-77 was caused by an expired certificate on the payments gateway. Severity SEV2 was declared at 09:12.\n"
    })
    const run = await ok(viewer.call("POST", `${tools(prompt)}/prompt-run`, { variables: { incident_id: "INC-77", date: "2026-01-03", severity: "SEV2" } }))
    expect(run.result.output).not.toMatch(/nothing relevant/)
    expect(run.result.output).toContain("expired certificate")
    expect(run.result.citations).toEqual([expect.objectContaining({ title: "INC-77" })])
  })

  it("serves work instructions and packs through the tools", async () => {
    const wi = await ok(viewer.call("GET", `${tools(instruction)}/work-instruction`))
    expect(wi.traceId).toMatch(UUID)
    expect(wi.instruction).toMatchObject({ assetId: instruction.assetId, title: "Pager rotation" })
    const pack = await released({
      type: "CAPABILITY_PACK", namespace: "onboarding", slug: "sre", knowledgeSpaceId: world.spaceId,
      draft: draftOf({ purpose: "ROLE_ONBOARDING", audience: "New SREs", expectedOutcome: "Ready", reviewDate: "2027-01-01", ownerUserId: owner.id,
        items: [{ itemKey: "pager", title: "Learn the pager rotation", kind: "ASSET_RELEASE", assetId: instruction.assetId, releaseId: instruction.releaseId, required: true, order: 1 }] })
    })
    const started = await ok(viewer.call("POST", `${tools(pack)}/pack`))
    expect(started.journey).toMatchObject({ status: "IN_PROGRESS", accessGap: false })
    const done = await ok(viewer.call("PUT", `${tools(pack)}/pack/pager`, { completed: true }))
    expect(done.journey.status).toBe("COMPLETED")
    expect((await ok(viewer.call("GET", `${tools(pack)}/pack`))).journey.assignmentId).toBe(started.journey.assignmentId)
  })

  it("takes feedback on a release, kept in the audit trail", async () => {
    const given = await ok(viewer.call("POST", `${tools(instruction)}/feedback`, { rating: "HELPFUL", comment: "clear steps" }), 201)
    expect(given.traceId).toMatch(UUID)
    expect(given.feedbackId).toMatch(UUID)
    const audit = await ok(world.admin("GET", `/api/admin/audit?resourceType=asset&resourceId=${instruction.assetId}`))
    expect(audit.items.find((e: any) => e.action === "asset.feedback").details).toMatchObject({ feedbackId: given.feedbackId, sentiment: "HELPFUL", comment: "clear steps" })
    await problem(outsider.call("POST", `${tools(instruction)}/feedback`, { rating: "HELPFUL" }), 404, "ASSET_NOT_FOUND")
  })

  it("forks a released version into a new draft owned by the caller", async () => {
    await problem(viewer.call("POST", `${tools(prompt)}/fork`, { namespace: "mine", slug: "brief" }), 403, "NOT_A_CONTRIBUTOR")
    const forked = await ok(contributor.call("POST", `${tools(prompt)}/fork`, { namespace: "mine", slug: "brief" }), 201)
    expect(forked.traceId).toMatch(UUID)
    expect(forked.asset).toMatchObject({ namespace: "mine", slug: "brief", portfolioState: "DRAFT_ONLY", ownerUserId: contributor.id })
    expect(forked.asset.draft.title).toBe("Incident brief for executives")
  })

  it("recommends released assets the caller may use, best match first; withdrawn ones disappear", async () => {
    const found = await ok(viewer.call("GET", "/api/assistant/tools/asset-recommendations?q=incident%20executives"))
    expect(found.traceId).toMatch(UUID)
    expect(found.recommendations[0]).toMatchObject({ assetId: prompt.assetId, releaseId: prompt.releaseId, versionLabel: "1.0.0", availability: "AVAILABLE" })
    const typed = await ok(viewer.call("GET", "/api/assistant/tools/asset-recommendations?type=WORK_INSTRUCTION"))
    expect(typed.recommendations.map((r: any) => r.assetId)).toEqual([instruction.assetId])
    expect((await ok(outsider.call("GET", "/api/assistant/tools/asset-recommendations"))).recommendations).toEqual([])
    await ok(owner.call("POST", `/api/assets/${prompt.assetId}/withdrawal`, { releaseId: prompt.releaseId, reason: "retired" }))
    const after = await ok(viewer.call("GET", "/api/assistant/tools/asset-recommendations?q=incident"))
    expect(after.recommendations.map((r: any) => r.assetId)).not.toContain(prompt.assetId)
    await problem(viewer.call("POST", `${tools(prompt)}/prompt-run`, { variables: {} }), 410, "RELEASE_WITHDRAWN")
  })
})
