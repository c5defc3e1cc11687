import { collectVariable } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { type PromptFlags, promptInput, variablesFile } from "../../promptInput"

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
    const flags = command.opts<PromptFlags>()
    const fromFile = await variablesFile(flags)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Rendering",
      run: async () => {
        const input = await promptInput(lore, ref, flags, fromFile)
        return lore.assets.renderPrompt(input.assetId, input.releaseId, input.variables)
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
