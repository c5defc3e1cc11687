import { requireId } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"

export default defineCommand({
  description: "revoke a pending invitation: its code stops working",
  examples: ["lore admin invitations revoke <invitationId>"],
  configure: (command) => command.argument("<invitationId>", "the invitation's id ('lore admin invitations list')"),
  run: async (runtime, command) => {
    const [invitationId] = command.processedArgs as [string]
    requireId(invitationId, "invitation", "'lore admin invitations list' shows the ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Revoking invitation",
      run: async () => {
        await lore.admin.invitations.revoke(invitationId)
        return { id: invitationId, revoked: true as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Revoked invitation ${result.id}` }]
    })
  }
})
