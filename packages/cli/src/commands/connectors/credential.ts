import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { kindOf, readCredential, withCredentialInput, withKind } from "../../views/connectors"

export default defineCommand({
  description: "set a connection's credential (write-only: never shown again), from stdin or LORE_CONNECTOR_CREDENTIAL; --clear removes it",
  examples: [
    "printf %s \"$SECRET\" | lore connectors credential crm --credential-stdin",
    "LORE_CONNECTOR_CREDENTIAL=... lore connectors credential crm",
    "lore connectors credential crm --clear"
  ],
  configure: (command) => withCredentialInput(withKind(command.argument("<key>", "the connection's key"))).option("--clear", "remove the stored credential"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const { clear } = command.opts<{ clear?: boolean }>()
    const credential = clear ? undefined : readCredential(runtime, command)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: clear ? `Clearing the credential of ${key}` : `Saving the credential of ${key}`,
      run: async () => {
        if (credential === undefined) await lore.admin.connectors.clearCredential(kind, key)
        else await lore.admin.connectors.setCredential(kind, key, credential)
        return { sourceSystem: kind, sourceConnectionKey: key, credentialSet: credential !== undefined }
      },
      view: (r) => [{ kind: "message", tone: "success", text: r.credentialSet ? `Saved the credential of ${kind} connection ${key} (write-only)` : `Cleared the credential of ${kind} connection ${key}` }]
    })
  }
})
