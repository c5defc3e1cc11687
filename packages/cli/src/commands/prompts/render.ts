import { readFile } from "node:fs/promises"
import { parse } from "yaml"
import { collectVariable, requireAsset, typedVariable } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { present } from "../../output/present"

export default defineCommand({
  description: "render a released prompt template with variables (sensitive values are never logged or stored by the server)",
  examples: [
    "lore prompts render ops/incident-summary --var incident_id=INC-42 --var date=2026-03-01 --var severity=SEV2",
    "lore --json prompts render ops/incident-summary --release 1.0.0 --vars-file vars.yaml | jq -r .userPrompt"
  ],
  notes: "Keep sensitive values out of shell history: put them in a --vars-file (YAML or JSON mapping).",
  configure: (command) =>
    command
      .argument("<asset>", "the prompt template's id or namespace/slug")
      .option("--release <release>", "the release's version label or id (default: the latest available)")
      .option("--var <name=value>", "a variable (repeatable)", collectVariable, [])
      .option("--vars-file <file>", "variables as a YAML or JSON mapping"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ release?: string; var: Array<readonly [string, string]>; varsFile?: string }>()
    let fromFile: Record<string, unknown> = {}
    if (flags.varsFile) {
      const parsed: unknown = parse(await readFile(flags.varsFile, "utf8"))
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw usageError(`${flags.varsFile} does not hold a mapping of variables`)
      fromFile = parsed as Record<string, unknown>
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Rendering",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        const release = flags.release
          ? asset.releases.find((r) => r.id === flags.release || r.versionLabel === flags.release)
          : asset.releases.filter((r) => r.availability === "AVAILABLE").at(-1)
        if (!release) throw new CliError(ExitCode.notFound, "RELEASE_NOT_FOUND", flags.release ? `the asset has no release '${flags.release}'` : "the asset has no available release")
        const declared = new Map<string, string>(
          (JSON.parse(release.payload) as { variables?: Array<{ name: string; type: string }> }).variables?.map((v) => [v.name, v.type]) ?? []
        )
        const variables: Record<string, unknown> = { ...fromFile }
        for (const [name, text] of flags.var) variables[name] = typedVariable(declared.get(name), text)
        return lore.assets.renderPrompt(asset.id, release.id, variables)
      },
      view: (rendered) => [
        { kind: "heading", text: "System" },
        { kind: "message", text: rendered.systemInstruction },
        { kind: "blank" },
        { kind: "heading", text: "User" },
        { kind: "message", text: rendered.userPrompt },
        { kind: "hint", text: `release digest ${rendered.releaseDigest}; input shape ${rendered.inputShapeDigest}` }
      ]
    })
  }
})
