import { defineCommand } from "../../../../command"
import { ask, present } from "../../../../output/present"
import { findGateway, readApiKey } from "../../../../views/ai"

export default defineCommand({
  description: "set a gateway's API key, read from stdin (--stdin) or a hidden prompt; never an argument",
  examples: ["printf %s \"$OPENAI_API_KEY\" | lore admin ai gateways credential openai --stdin", "lore admin ai gateways credential openai   # asks on a terminal"],
  notes: "The key is encrypted at rest and never shown again: gateways list only whether one is set, by whom and when.",
  configure: (command) => command.argument("<gateway>", "gateway key or id").option("--stdin", "read the API key from stdin"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const { stdin } = command.opts<{ stdin?: boolean }>()
    const apiKey = await readApiKey(runtime, stdin === true, () => ask(runtime, { label: `API key for ${ref}:`, flag: "--stdin", secret: true }), ref)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Setting the API key of ${ref}`,
      run: async () => {
        const gateway = await findGateway(lore, ref)
        await lore.admin.ai.setCredential(gateway.id, apiKey)
        return { id: gateway.id, gatewayKey: gateway.gatewayKey, credentialSet: true as const }
      },
      view: (result) => [
        { kind: "message", tone: "success", text: `Stored the API key of ${result.gatewayKey} (encrypted; it is never shown again)` },
        { kind: "message", tone: "muted", text: `Check it with: lore admin ai gateways test ${result.gatewayKey}` }
      ]
    })
  }
})
