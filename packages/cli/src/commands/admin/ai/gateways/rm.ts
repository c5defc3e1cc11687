import { defineCommand } from "../../../../command"
import { usageError } from "../../../../errors"
import { present } from "../../../../output/present"
import { findGateway } from "../../../../views/ai"

export default defineCommand({
  description: "delete a gateway and its API key (refused while a route uses it)",
  aliases: ["remove"],
  examples: ["lore admin ai gateways rm ollama --yes"],
  configure: (command) => command.argument("<gateway>", "gateway key or id").option("-y, --yes", "delete (required: this cannot be undone)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    if (!command.opts<{ yes?: boolean }>().yes) throw usageError(`refusing to delete gateway ${ref} without --yes; its API key is deleted with it`)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Deleting gateway ${ref}`,
      run: async () => {
        const gateway = await findGateway(lore, ref)
        await lore.admin.ai.deleteGateway(gateway.id, gateway.version)
        return { id: gateway.id, gatewayKey: gateway.gatewayKey, deleted: true as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Deleted gateway ${result.gatewayKey}` }]
    })
  }
})
