import { collectVariable } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { type PromptFlags, promptInput, variablesFile } from "../../promptInput"

export default defineCommand({
  description: "run a released prompt template on the PROMPT_EXECUTION model route (LOCAL when none is set)",
  examples: [
    "lore prompts run ops/incident-summary --var incident_id=INC-42 --var date=2026-03-01 --var severity=SEV2",
    "lore --json prompts run ops/incident-summary --vars-file vars.yaml | jq -r .result.output"
  ],
  notes: "The run is recorded with the model, duration and the input's shape, never the variables' values.",
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
      progress: "Running the prompt",
      run: async () => {
        const input = await promptInput(lore, ref, flags, fromFile)
        return lore.assets.tools.runPrompt(input.assetId, input.releaseId, input.variables)
      },
      view: (answer) => [
        { kind: "message", text: answer.result.output },
        ...answer.result.citations.map((c, i) => ({ kind: "message" as const, tone: "muted" as const, text: `[${i + 1}] ${c.title}${c.heading ? ` — ${c.heading}` : ""}` })),
        { kind: "hint", text: `model ${answer.result.modelRoute.modelId} on gateway ${answer.result.modelRoute.gatewayId}, ${answer.result.durationMillis} ms; trace ${answer.traceId}` }
      ]
    })
  }
})
