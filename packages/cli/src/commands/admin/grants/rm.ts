import { Directory, grantFlags, grantSpec } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { grantee, grantsOf, grantsView } from "../../../views/grants"

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
        const { space, grant } = await directory.grantOn(ref, spec)
        await directory.lore.admin.spaces.removeGrant(space.id, grant)
        return { ...grantsOf((await directory.spaceNow(space.id)) ?? { ...space, grants: [] }), grant, change: "removed" as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Removed ${result.grant.relation} on ${result.space.key} from ${grantee(result.grant, spec)}` }, ...grantsView(result)]
    })
  }
})
