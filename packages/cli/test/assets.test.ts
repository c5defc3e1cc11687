import { createLoreClient } from "@lore/sdk"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

// The governed lifecycle through the built `lore` binary: push files (idempotent), submit, review, diff,
// release, roles, withdraw, pull; the author (the admin) cannot approve their own revision.

let server: ServedLore
let home: string
let reviewerHome: string
let dir: string
let reviewerId: string

const as = (config: () => string) => (args: ReadonlyArray<string>) => lore(args, { env: { XDG_CONFIG_HOME: config() } })
const author = as(() => home)
const reviewer = as(() => reviewerHome)

const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

const assetYaml = (objective: string) => `type: PROMPT_TEMPLATE
namespace: ops
slug: incident-summary
knowledgeSpace: playbooks
title: Incident summary
summary: Summarizes an incident for executives
classification: INTERNAL
schemaVersion: "1"
payload:
  objective: ${objective}
  audience: Incident commanders
  systemInstruction: You write calm summaries.
  userTemplate: "Summarize incident {{incident_id}}."
  variables:
    - name: incident_id
      type: STRING
      required: true
      sensitive: false
  outputContract: {}
  knowledgeRequirements: []
  knownLimitations: ""
`

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  reviewerHome = newConfigHome()
  dir = mkdtempSync(join(tmpdir(), "lore-cli-assets-"))
  const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
  const space = await admin.admin.spaces.create({ key: "playbooks", name: "Playbooks" })
  const department = (await admin.admin.departments.list())[0]!
  const invitation = await admin.admin.invitations.create({ email: "reviewer@example.com", departmentId: department.id })
  const accepted = await createLoreClient({ baseUrl: server.url }).invitations.accept({ code: invitation.invitationCode })
  reviewerId = accepted.user.id
  await admin.admin.roles.addMember("ASSET_REVIEWER", reviewerId)
  await admin.admin.spaces.addGrant(space.id, { relation: "viewer", kind: "USER", subjectId: reviewerId })
  await ok(author(["login", "--server", server.url, "--token", server.adminToken]))
  await ok(reviewer(["login", "--server", server.url, "--token", accepted.token.token]))
  mkdirSync(join(dir, "assets", "ops"), { recursive: true })
  writeFileSync(join(dir, "assets", "ops", "incident-summary.yaml"), assetYaml("Summarize an incident"))
})
afterAll(async () => {
  await server?.stop()
  rmSync(dir, { recursive: true, force: true })
})

describe("lore assets", { timeout: 240_000 }, () => {
  it("pushes asset files idempotently: created, unchanged, updated", async () => {
    const pattern = join(dir, "assets", "**", "*.yaml")
    const first = (await ok(author(["--json", "assets", "push", pattern]))).json()
    expect(first).toMatchObject([{ asset: "ops/incident-summary", change: "created", lockVersion: 1 }])
    const again = (await ok(author(["--json", "assets", "push", pattern]))).json()
    expect(again).toMatchObject([{ change: "unchanged", lockVersion: 1 }])
    writeFileSync(join(dir, "assets", "ops", "incident-summary.yaml"), assetYaml("Summarize an incident for the board"))
    const updated = (await ok(author(["--json", "assets", "push", pattern]))).json()
    expect(updated).toMatchObject([{ change: "updated", lockVersion: 2 }])
    const listed = (await ok(author(["--json", "assets", "list", "--type", "prompt-template"]))).json()
    expect(listed.map((a: any) => `${a.namespace}/${a.slug}`)).toEqual(["ops/incident-summary"])
    expect((await ok(author(["assets"]))).stdout).toContain("ops/incident-summary")
  })

  it("submits, refuses self-approval, reviews, diffs and releases", async () => {
    const submitted = (await ok(author(["--json", "assets", "submit", "ops/incident-summary", "--note", "first"]))).json()
    expect(submitted.portfolioState).toBe("IN_REVIEW")
    const self = await author(["--json", "assets", "review", "ops/incident-summary", "--approve"])
    expect(self.code).toBe(4)
    expect(self.json().error.code).toBe("SELF_APPROVAL_FORBIDDEN")
    const early = await author(["--json", "assets", "release", "ops/incident-summary", "--label", "1.0.0"])
    expect(early.code, early.stdout + early.stderr).toBe(6)

    const diff = (await ok(reviewer(["--json", "assets", "diff", "ops/incident-summary"]))).json()
    expect(diff.baseReleaseId).toBeNull()
    expect((await ok(reviewer(["assets", "diff", "ops/incident-summary"]))).stdout).toContain('"objective": "Summarize an incident for the board"')
    const approved = (await ok(reviewer(["--json", "assets", "review", "ops/incident-summary", "--approve", "--comment", "clear"]))).json()
    expect(approved.reviews[0].state).toBe("APPROVED")

    const badVersion = await author(["assets", "release", "ops/incident-summary", "--label", "v1"])
    expect(badVersion.code).toBe(2)
    const released = (await ok(author(["--json", "assets", "release", "ops/incident-summary", "--label", "1.0.0"]))).json()
    expect(released.releases[0]).toMatchObject({ versionLabel: "1.0.0", availability: "AVAILABLE", digest: released.revisions[0].digest })
    expect((await ok(author(["assets", "show", "ops/incident-summary"]))).stdout).toContain("1.0.0")

    const rendered = (await ok(reviewer(["--json", "prompts", "render", "ops/incident-summary", "--var", "incident_id=INC-9"]))).json()
    expect(rendered).toMatchObject({ userPrompt: "Summarize incident INC-9.", systemInstruction: "You write calm summaries.", releaseDigest: released.releases[0].digest })
    expect((await ok(reviewer(["prompts", "render", "ops/incident-summary", "--var", "incident_id=INC-9"]))).stdout).toContain("Summarize incident INC-9.")
    const run = (await ok(reviewer(["--json", "prompts", "run", "ops/incident-summary", "--var", "incident_id=INC-9"]))).json()
    expect(run.result).toMatchObject({ modelRoute: { modelId: "lore-extractive" }, releaseDigest: released.releases[0].digest })
    expect(run.traceId).toBe(run.result.runId)
    const missing = await reviewer(["--json", "prompts", "render", "ops/incident-summary"])
    expect(missing.code).toBe(6)
    expect(missing.json().error.code).toBe("INVALID_VARIABLES")
  })

  it("assigns roles, withdraws, and pulls the asset back into a file", async () => {
    const roles = (await ok(author(["--json", "assets", "roles", "ops/incident-summary", "--add", "backup-owner", "--user", reviewerId]))).json()
    expect(roles.ownershipHealth).toMatchObject({ ownerPresent: true, backupOwnerPresent: true, orphaned: false })
    const withdrawn = (await ok(author(["--json", "assets", "withdraw", "ops/incident-summary", "--release", "1.0.0", "--reason", "superseded"]))).json()
    expect(withdrawn.releases[0].availability).toBe("WITHDRAWN")
    const out = join(dir, "pulled")
    await ok(author(["assets", "pull", "ops/incident-summary", "--dir", out]))
    const file = join(out, "ops", "incident-summary.yaml")
    expect(existsSync(file)).toBe(true)
    expect(parse(readFileSync(file, "utf8"))).toMatchObject({ type: "PROMPT_TEMPLATE", knowledgeSpace: "playbooks", payload: { objective: "Summarize an incident for the board" } })
  })

  it("refuses to open an editor without a terminal, naming pull and push", async () => {
    const edit = await author(["assets", "edit", "ops/incident-summary"])
    expect(edit.code).toBe(2)
    expect(edit.stderr).toContain("lore assets push")
  })
})
