import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { findPrincipal, principalView } from "../../views/connectors"

export default defineCommand({
  description: "remove a source principal's mapping: what its ACLs admit no longer reaches the Lore user",
  examples: ["lore principals unmap ann@corp.example --connection crm", "lore principals unmap <principal-id> --json"],
  configure: (command) =>
    command
      .argument("<principal>", "the principal's id, native id or observed email")
      .option("--connection <key>", "the connection the principal was seen on (when the native id is on several)"),
  run: async (runtime, command) => {
    const [principalRef] = command.processedArgs as [string]
    const { connection } = command.opts<{ connection?: string }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Unmapping ${principalRef}`,
      run: async () => lore.admin.sourceIdentity.unmap((await findPrincipal(lore, principalRef, connection)).id),
      view: (p) => principalView(p, `Unmapped ${p.nativePrincipalId}`)
    })
  }
})
