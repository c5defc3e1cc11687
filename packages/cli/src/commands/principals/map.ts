import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { findPrincipal, principalView } from "../../views/connectors"

export default defineCommand({
  description: "map a source principal to a Lore user (MANUAL; grants access only on a trusted connection)",
  examples: ["lore principals map ann@corp.example ann@example.com --connection crm", "lore principals map <principal-id> <user-id> --json"],
  configure: (command) =>
    command
      .argument("<principal>", "the principal's id, native id or observed email")
      .argument("<user>", "the Lore user's email or id")
      .option("--connection <key>", "the connection the principal was seen on (when the native id is on several)"),
  run: async (runtime, command) => {
    const [principalRef, userRef] = command.processedArgs as [string, string]
    const { connection } = command.opts<{ connection?: string }>()
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Mapping ${principalRef} to ${userRef}`,
      run: async () => {
        const [principal, userId] = await Promise.all([findPrincipal(directory.lore, principalRef, connection), directory.userId(userRef)])
        return directory.lore.admin.sourceIdentity.map(principal.id, userId)
      },
      view: (p) => principalView(p, `Mapped ${p.nativePrincipalId} to ${p.mapping?.appUserEmail ?? userRef}`)
    })
  }
})
