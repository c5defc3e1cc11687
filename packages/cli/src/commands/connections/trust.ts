import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "trust a connection's identities: its mapped principals grant access to what their ACLs admit",
  examples: ["lore connections trust crm", "lore connections trust crm --kind PUSH --json"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Setting the identity trust of ${key}`,
      run: () => lore.admin.sourceIdentity.setTrust(kind, key, "TRUSTED"),
      view: (c) => [{ kind: "message", tone: "success", text: `Trusted ${c.sourceSystem} connection ${c.sourceConnectionKey} (${c.mappedUserCount} of ${c.userCount} source users mapped)` }]
    })
  }
})
