import type { GatewayPreset } from "@lore/sdk"
import { gatewayPresetValues } from "@lore/sdk"
import { defineCommand } from "../../../../command"
import { usageError } from "../../../../errors"
import { present } from "../../../../output/present"
import { gatewayView, presetArgument, secondsArgument } from "../../../../views/ai"

export default defineCommand({
  description: "add a gateway (then set its API key with 'lore admin ai gateways credential')",
  examples: [
    "lore admin ai gateways add openai --preset openai --name OpenAI",
    "lore admin ai gateways add ollama --preset openai-compatible --name Ollama --base-url http://127.0.0.1:11434/v1"
  ],
  configure: (command) =>
    command
      .argument("<key>", "short unique key: lowercase letters, digits and dashes (e.g. openai)")
      .option("--preset <preset>", gatewayPresetValues.filter((preset) => preset !== "LOCAL").join(", "), presetArgument)
      .option("--name <name>", "display name")
      .option("--base-url <url>", "API base including its version path (default: the preset's)")
      .option("--timeout <seconds>", "seconds to wait for an answer (default 60)", secondsArgument)
      .option("--reasoning-effort", "the gateway takes providerReasoningEffort (default: the preset's)")
      .option("--disabled", "add it disabled"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const flags = command.opts<{ preset?: GatewayPreset; name?: string; baseUrl?: string; timeout?: number; reasoningEffort?: boolean; disabled?: boolean }>()
    if (!/^[a-z0-9][a-z0-9-]{0,62}$/.test(key)) throw usageError(`'${key}' is not a valid key: lowercase letters, digits and dashes, at most 63`)
    if (!flags.preset) throw usageError(`missing --preset: pass --preset ${gatewayPresetValues.filter((preset) => preset !== "LOCAL").join("|")}`)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Adding gateway ${key}`,
      run: () =>
        lore.admin.ai.createGateway({
          gatewayKey: key,
          displayName: flags.name?.trim() || key,
          preset: flags.preset!,
          ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
          ...(flags.timeout === undefined ? {} : { requestTimeoutSeconds: flags.timeout }),
          ...(flags.reasoningEffort ? { supportsProviderReasoningEffort: true } : {}),
          ...(flags.disabled ? { enabled: false } : {})
        }),
      view: (gateway) => [
        ...gatewayView(gateway, `Added gateway ${gateway.gatewayKey}`),
        { kind: "message", tone: "muted", text: `Set its API key with: printf %s "$KEY" | lore admin ai gateways credential ${gateway.gatewayKey} --stdin` }
      ]
    })
  }
})
