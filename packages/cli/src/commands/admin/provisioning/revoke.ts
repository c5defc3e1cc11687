import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { findConnection } from "../../../views/provisioning"

export default defineCommand({
  description: "revoke a credential at once (it stays listed as revoked)",
  examples: ["lore admin provisioning revoke okta 3f0c..."],
  configure: (command) =>
    command
      .argument("<connection>", "the connection's alias or id")
      .argument("<credential>", "the credential's id"),
  run: async (runtime, command) => {
    const [ref, credentialId] = command.processedArgs as [string, string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Revoking the credential",
      run: async () => {
        await lore.admin.provisioning.revoke((await findConnection(lore, ref)).id, credentialId)
        return { credentialId, revoked: true }
      },
      view: () => [{ kind: "message", tone: "success", text: `Revoked credential ${credentialId}` }]
    })
  }
})
