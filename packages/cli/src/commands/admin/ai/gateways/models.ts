import { defineCommand } from "../../../../command"
import { usageError } from "../../../../errors"
import { present } from "../../../../output/present"
import { styled } from "../../../../output/view"
import { findGateway } from "../../../../views/ai"

const collect = (value: string, previous: Array<string> = []) => [...previous, value]

/** `gpt-4o-mini=GPT-4o mini` or just `gpt-4o-mini`. */
const offered = (spec: string) => {
  const at = spec.indexOf("=")
  const modelId = (at === -1 ? spec : spec.slice(0, at)).trim()
  const displayName = (at === -1 ? modelId : spec.slice(at + 1)).trim()
  if (modelId === "" || displayName === "") throw usageError(`--offer '${spec}': expected MODEL or MODEL=Display name`)
  return { modelId, displayName }
}

export default defineCommand({
  description: "the models a gateway's provider lists, and which of them the assistant offers (--offer to choose)",
  examples: ["lore admin ai gateways models openai", "lore admin ai gateways models openai --offer gpt-4o --offer 'gpt-4o-mini=GPT-4o mini'", "lore admin ai gateways models openai --offer-none"],
  configure: (command) =>
    command
      .argument("<gateway>", "gateway key or id")
      .option("--offer <model>", "offer this model in the assistant (repeat; MODEL=Display name); replaces the list", collect)
      .option("--offer-none", "offer none of this gateway's models in the assistant"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ offer?: Array<string>; offerNone?: boolean }>()
    if (flags.offer && flags.offerNone) throw usageError("--offer and --offer-none together: pass one")
    const choice = flags.offerNone ? [] : flags.offer?.map(offered)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Loading the models of ${ref}`,
      run: async () => {
        const gateway = await findGateway(lore, ref)
        const assistantModels = choice === undefined ? gateway.assistantModels : await lore.admin.ai.setAssistantModels(gateway.id, choice)
        const test = choice === undefined ? await lore.admin.ai.testGateway(gateway.id) : undefined
        return { gatewayKey: gateway.gatewayKey, assistantModels, available: test?.models ?? null, errorCode: test?.errorCode ?? null }
      },
      view: (result) => {
        const offeredIds = new Set(result.assistantModels.map((model) => model.modelId))
        const ids = [...new Set([...result.assistantModels.map((model) => model.modelId), ...(result.available ?? []).map((model) => model.id)])]
        return [
          ...(result.errorCode ? [{ kind: "message" as const, tone: "warning" as const, text: `The provider's list is unavailable (${result.errorCode}); see 'lore admin ai gateways test ${result.gatewayKey}'` }] : []),
          {
            kind: "table",
            columns: [{ header: "model" }, { header: "assistant" }, { header: "name" }],
            rows: ids.map((id) => [
              id,
              offeredIds.has(id) ? styled("offered", "success") : styled("-", "muted"),
              result.assistantModels.find((model) => model.modelId === id)?.displayName ?? ""
            ]),
            empty: "No models."
          }
        ]
      }
    })
  }
})
