import { createLoreClient } from "@lore/sdk"
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"
import { loreOnTerminal, screenText } from "./support/terminal"

// Authoring assets as a new user does (issue 33.4, 33.5, 33.6): `assets edit` keeps the edits and says what was
// wrong, `assets rm` deletes a draft made by mistake, `assets submit` says who may approve.

let server: ServedLore
let home: string
let dir: string

const template = (userTemplate: string, variables: string) => `type: PROMPT_TEMPLATE
namespace: ops
slug: brief
knowledgeSpace: general
title: Brief
summary: Briefs someone
classification: INTERNAL
schemaVersion: "1"
payload:
  objective: Brief someone
  audience: Travellers
  systemInstruction: You brief people.
  userTemplate: "${userTemplate}"
  variables: ${variables}
  outputContract: {}
  knowledgeRequirements: []
  knownLimitations: ""
`

const env = () => ({ XDG_CONFIG_HOME: home, LORE_SERVER: server.url, LORE_TOKEN: server.adminToken })
const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

/**
 * An $EDITOR that plays a person: on its n-th call it copies what it was given to `seen-<n>.yaml` and writes
 * `step-<n>.yaml` over the file (or leaves the file alone when there is no such step).
 */
const scriptedEditor = (steps: Record<number, string>) => {
  const folder = mkdtempSync(join(dir, "editor-"))
  for (const [n, text] of Object.entries(steps)) writeFileSync(join(folder, `step-${n}.yaml`), text)
  const script = join(folder, "editor.cjs")
  writeFileSync(script, `#!${process.execPath}
const fs = require("fs"), path = require("path")
const folder = ${JSON.stringify(folder)}, file = process.argv[2]
const counter = path.join(folder, "count")
const n = (fs.existsSync(counter) ? Number(fs.readFileSync(counter, "utf8")) : 0) + 1
fs.writeFileSync(counter, String(n))
fs.copyFileSync(file, path.join(folder, "seen-" + n + ".yaml"))
const step = path.join(folder, "step-" + n + ".yaml")
if (fs.existsSync(step)) fs.copyFileSync(step, file)
`)
  chmodSync(script, 0o755)
  return { script, seen: (n: number) => readFileSync(join(folder, `seen-${n}.yaml`), "utf8"), calls: () => Number(readFileSync(join(folder, "count"), "utf8")) }
}

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  home = newConfigHome()
  dir = mkdtempSync(join(tmpdir(), "lore-cli-authoring-"))
  writeFileSync(join(dir, "brief.yaml"), template("Brief me on {{topic}}.", "[{ name: topic, type: STRING, required: true, sensitive: false }]"))
  await ok(lore(["assets", "push", join(dir, "brief.yaml")], { env: env() }))
})
afterAll(async () => {
  await server?.stop()
})

describe("authoring assets", { timeout: 240_000 }, () => {
  it("assets edit reopens the editor with what was wrong at the top, then saves", async () => {
    const editor = scriptedEditor({
      1: "payload: [unclosed\n",
      2: template("Brief me on {{country}}.", "[{ name: topic, type: STRING, required: true, sensitive: false }]"),
      3: template("Brief me on {{topic}}, kindly.", "[{ name: topic, type: STRING, required: true, sensitive: false }]")
    })
    const run = await loreOnTerminal(["assets", "edit", "ops/brief"], { env: { ...env(), EDITOR: editor.script } })
    expect(run.code, screenText(run.output)).toBe(0)
    expect(editor.calls()).toBe(3)
    expect(editor.seen(2)).toMatch(/^# lore: .*YAML/m)
    expect(editor.seen(3)).toMatch(/^# lore: payload\.userTemplate: .*country/m)
    const saved = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const asset = await saved.assets.get((await saved.assets.list({ q: "brief" }))[0]!.id)
    expect(asset.draft!.payload).toContain("kindly")
    expect(asset.draft!.payload).not.toContain("# lore")
  })

  it("assets edit keeps the file and exits 6 when the editor is quit without fixing it", async () => {
    const editor = scriptedEditor({ 1: template("Brief me on {{nation}}.", "[{ name: topic, type: STRING, required: true, sensitive: false }]") })
    const run = await loreOnTerminal(["assets", "edit", "ops/brief"], { env: { ...env(), EDITOR: editor.script } })
    expect(run.code).toBe(6)
    const text = screenText(run.output)
    expect(text).toContain("DRAFT_NOT_SAVED")
    const kept = /kept in (\S+\.yaml)/.exec(text)?.[1]
    expect(kept && existsSync(kept)).toBe(true)
    expect(readFileSync(kept!, "utf8")).toContain("{{nation}}")
  })

  it("assets submit names who may approve; assets rm deletes a never-released draft (asking first)", async () => {
    const roles = await ok(lore(["assets", "roles", "ops/brief"], { env: env() }))
    expect(roles.stdout).toContain("admin@lore.local")
    const submitted = await ok(lore(["assets", "submit", "ops/brief", "--note", "first"], { env: env() }))
    expect(submitted.stdout + submitted.stderr).toMatch(/APPROVALS 0\/1 — .*lore assets roles ops\/brief --add REVIEWER/)
    const refused = await lore(["assets", "rm", "ops/brief"], { env: env() })
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("--yes")
    const removed = await ok(lore(["--json", "assets", "rm", "ops/brief", "--yes"], { env: env() }))
    expect(removed.json()).toMatchObject({ deleted: true })
    const gone = await lore(["--json", "assets", "rm", "ops/brief", "--yes"], { env: env() })
    expect(gone.code).toBe(5)
  })

  it("refuses to submit or release a work instruction that still holds the starter text; instructions show reads the release", async () => {
    const admin = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const space = (await admin.knowledgeSpaces.visible()).find((candidate) => candidate.key === "general")!
    const policy = await admin.assets.policy(space.id)
    await admin.assets.setPolicy(space.id, { requiredApprovals: policy.requiredApprovals, directReleaseAllowed: true, version: policy.version })
    await ok(lore(["assets", "new", "sre/pager", "--type", "WORK_INSTRUCTION", "--space", "general", "--title", "Pager rotation"], { env: env() }))
    for (const args of [["assets", "submit", "sre/pager"], ["assets", "release", "sre/pager", "--direct", "--label", "1.0.0"]]) {
      const refused = await lore(args, { env: env() })
      expect(refused.code, refused.stderr).toBe(6)
      expect(refused.stderr).toContain("STARTER_TEXT")
      expect(refused.stderr).toMatch(/^ {2}payload\.steps\[0\]\.instruction: still holds the starter text "Do the first thing"$/m)
    }
    const asset = await admin.assets.get((await admin.assets.list({ q: "pager" }))[0]!.id)
    await admin.assets.updateDraft(asset.id, {
      title: asset.draft!.title, summary: "Who carries the pager", classification: asset.draft!.classification, schemaVersion: asset.draft!.schemaVersion,
      lockVersion: asset.draft!.lockVersion,
      payload: admin.assets.payload.stringify("WORK_INSTRUCTION", {
        purpose: "Keep one engineer reachable at all times", audience: "SREs", prerequisites: ["A working phone"], completionOutcome: "The pager is handed over",
        responsibleRole: "SRE lead",
        steps: [{ key: "handover", title: "Hand over the pager", instruction: "Call the next engineer and confirm they have the pager.", check: "They answered a test page", escalation: "Call the SRE lead" }]
      })
    })
    await ok(lore(["assets", "release", "sre/pager", "--direct", "--label", "1.0.0"], { env: env() }))
    const shown = await ok(lore(["instructions", "show", "sre/pager"], { env: env() }))
    expect(shown.stdout).toContain("1. Hand over the pager")
    expect(shown.stdout).toContain("Check: They answered a test page")
    const json = (await ok(lore(["--json", "instructions", "show", "sre/pager", "--release", "1.0.0"], { env: env() }))).json()
    expect(json).toMatchObject({ versionLabel: "1.0.0", instruction: { steps: [{ key: "handover" }] } })
    expect((await lore(["instructions", "show", "sre/pager", "--release", "9.9.9"], { env: env() })).code).toBe(5)
  })
})
