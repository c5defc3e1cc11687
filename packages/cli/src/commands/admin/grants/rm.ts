import { Directory, grantFlags, grantSpec, resolveGrant } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { grantsOf, grantsView } from "../../../views/grants"

export default defineCommand({
  description: "remove a grant (same flags as when it was added)",
  aliases: ["remove"],
  examples: ["lore admin grants rm eng --relation viewer --kind ORGANIZATION", "lore admin grants rm eng --relation curator --kind USER --subject ada@example.com"],
  configure: grantFlags,
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const spec = grantSpec(command.opts())
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Removing the grant",
      run: async () => {
        const [space, grant] = await Promise.all([directory.space(ref), resolveGrant(directory, spec)])
        await directory.lore.admin.spaces.removeGrant(space.id, grant)
        const after = (await directory.lore.admin.spaces.list()).find((candidate) => candidate.id === space.id) ?? { ...space, grants: [] }
        return { ...grantsOf(after), grant, change: "removed" as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Removed ${result.grant.relation} on ${result.space.key} from ${spec.subject ?? spec.role ?? "the whole organization"}` }, ...grantsView(result)]
    })
  }
})
