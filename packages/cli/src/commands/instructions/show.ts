import type { WorkInstruction } from "@lore/sdk"
import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import type { Block, View } from "../../output/view"

/** A work instruction as a person follows it: what it is for, then each step with its check and escalation. */
const instructionView = (wi: WorkInstruction): View => {
  const body = wi.instruction
  const blocks: Array<Block> = [
    { kind: "heading", text: `${wi.title} (${wi.versionLabel})` },
    { kind: "fields", fields: [["Purpose", body.purpose], ["Audience", body.audience], ["Responsible", body.responsibleRole], ["Done when", body.completionOutcome]] }
  ]
  if ((body.prerequisites ?? []).length > 0) blocks.push({ kind: "blank" }, { kind: "heading", text: "Before you start" }, ...(body.prerequisites ?? []).map((p) => ({ kind: "message" as const, text: `- ${p}` })))
  body.steps.forEach((step, index) => {
    blocks.push({ kind: "blank" }, { kind: "heading", text: `${index + 1}. ${step.title}` }, { kind: "message", text: step.instruction })
    if (step.expectedResult) blocks.push({ kind: "message", text: `Expected: ${step.expectedResult}` })
    if (step.check) blocks.push({ kind: "message", text: `Check: ${step.check}` })
    if (step.escalation) blocks.push({ kind: "message", text: `Escalate: ${step.escalation}` })
    for (const prohibited of step.prohibitedActions ?? []) blocks.push({ kind: "message", text: `Never: ${prohibited}`, tone: "warning" })
  })
  blocks.push({ kind: "hint", text: `release ${wi.releaseId}, digest ${wi.releaseDigest}${wi.acknowledged ? "; you acknowledged it" : ""}` })
  return blocks
}

export default defineCommand({
  description: "read a released work instruction (the latest available release, or --release)",
  examples: ["lore instructions show sre/pager", "lore --json instructions show sre/pager --release 1.0.0 | jq '.instruction.steps[].title'"],
  notes: "With --json, prints the WorkInstruction: {assetId, releaseId, releaseDigest, title, versionLabel, instruction: {purpose, audience, prerequisites, completionOutcome, responsibleRole, steps}, acknowledged, acknowledgedAt}.",
  configure: (command) =>
    command
      .argument("<asset>", "the work instruction's id or namespace/slug")
      .option("--release <release>", "the release's version label or id (default: the latest available)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ release?: string }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading the work instruction",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        if (asset.type !== "WORK_INSTRUCTION") throw new CliError(ExitCode.invalid, "WRONG_ASSET_TYPE", `${asset.namespace}/${asset.slug} is a ${asset.type}, not a WORK_INSTRUCTION`)
        const release = flags.release
          ? asset.releases.find((r) => r.id === flags.release || r.versionLabel === flags.release)
          : asset.releases.filter((r) => r.availability === "AVAILABLE").at(-1)
        if (!release) throw new CliError(ExitCode.notFound, "RELEASE_NOT_FOUND", flags.release ? `the asset has no release '${flags.release}'` : "the asset has no available release")
        return lore.assets.workInstruction(asset.id, release.id)
      },
      view: instructionView
    })
  }
})
