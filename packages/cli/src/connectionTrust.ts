import { defineCommand } from "./command"
import { present } from "./output/present"
import { kindOf, withKind } from "./views/connectors"

/** `lore connections trust|distrust <key>`: the two differ only in the trust they set and how they say it. */
export const connectionTrustCommand = (trust: "TRUSTED" | "UNTRUSTED", description: string) => {
  const verb = trust === "TRUSTED" ? "trust" : "distrust"
  return defineCommand({
    description,
    examples: [`lore connections ${verb} crm`, `lore connections ${verb} crm --kind PUSH --json`],
    configure: (command) => withKind(command.argument("<key>", "the connection's key")),
    run: async (runtime, command) => {
      const [key] = command.processedArgs as [string]
      const kind = kindOf(command)
      const lore = runtime.client({ requireToken: true })
      await present(runtime, {
        progress: `Setting the identity trust of ${key}`,
        run: () => lore.admin.sourceIdentity.setTrust(kind, key, trust),
        view: (c) => [{
          kind: "message",
          tone: "success",
          text: `${trust === "TRUSTED" ? "Trusted" : "Distrusted"} ${c.sourceSystem} connection ${c.sourceConnectionKey} (${c.mappedUserCount} of ${c.userCount} source users mapped)`
        }]
      })
    }
  })
}
