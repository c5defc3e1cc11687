import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "stop trusting a connection's identities: its ACLs then admit nobody in Lore",
  examples: ["lore connections distrust crm", "lore connections distrust crm --kind PUSH --json"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Setting the identity trust of ${key}`,
      run: () => lore.admin.sourceIdentity.setTrust(kind, key, "UNTRUSTED"),
      view: (c) => [{ kind: "message", tone: "success", text: `Distrusted ${c.sourceSystem} connection ${c.sourceConnectionKey} (${c.mappedUserCount} of ${c.userCount} source users mapped)` }]
    })
  }
})
