import { defineCommand } from "../../command"
import { confirm, present, requireConfirmation } from "../../output/present"
import { kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "delete a connection and retire its documents (asks first; --yes in scripts)",
  aliases: ["remove"],
  examples: ["lore connectors rm crm", "lore connectors rm crm --kind PUSH --yes"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")).option("-y, --yes", "delete without asking"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const { yes } = command.opts<{ yes?: boolean }>()
    const kind = kindOf(command)
    if (!yes) {
      requireConfirmation(runtime, `delete connection ${key}`)
      await confirm(runtime, `Delete ${kind} connection ${key} and retire its documents?`, `connection ${key} was not deleted`)
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Deleting ${kind} connection ${key}`,
      run: async () => {
        await lore.admin.connectors.remove(kind, key)
        return { sourceSystem: kind, sourceConnectionKey: key, removed: true as const }
      },
      view: () => [{ kind: "message", tone: "success", text: `Deleted ${kind} connection ${key}; its documents are retired` }]
    })
  }
})
