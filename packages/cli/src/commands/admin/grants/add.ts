import type { AddGrant, SpaceGrant } from "@lore/sdk"
import { Directory, grantFlags, grantSpec } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { grantee, grantsOf, grantsView, type SpaceGrants } from "../../../views/grants"

export interface GrantAdded extends SpaceGrants {
  readonly grant: AddGrant
  /** `unchanged`: the space already had this grant, so nothing was sent. */
  readonly change: "added" | "unchanged"
}

const sameId = (a: string | null | undefined, b: string | null | undefined) => (a ?? "").toLowerCase() === (b ?? "").toLowerCase()

/** The API answers 204 whether or not the grant was there already; the space's grants tell them apart. */
const isGranted = (grants: ReadonlyArray<SpaceGrant>, grant: AddGrant) =>
  grants.some((existing) => existing.relation === grant.relation && existing.kind === grant.kind && sameId(existing.subjectId, grant.subjectId) && sameId(existing.role, grant.role))

export default defineCommand({
  description: "grant a relation on a knowledge space (says so when the grant already existed)",
  examples: [
    "lore admin grants add eng --relation viewer --kind ORGANIZATION",
    "lore admin grants add eng --relation contributor --kind DEPARTMENT --subject Engineering",
    "lore admin grants add eng --relation curator --kind USER --subject ada@example.com",
    "lore admin grants add eng --relation viewer --kind ROLE --role MANAGER"
  ],
  configure: grantFlags,
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const spec = grantSpec(command.opts())
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Adding the grant",
      run: async (): Promise<GrantAdded> => {
        const { space, grant } = await directory.grantOn(ref, spec)
        if (isGranted(space.grants, grant)) return { ...grantsOf(space), grant, change: "unchanged" }
        await directory.lore.admin.spaces.addGrant(space.id, grant)
        // Read the space back, so the result shows the grants now in force.
        return { ...grantsOf((await directory.spaceNow(space.id)) ?? space), grant, change: "added" }
      },
      view: (result) => [
        result.change === "added"
          ? { kind: "message", tone: "success", text: `Granted ${result.grant.relation} on ${result.space.key} to ${grantee(result.grant, spec)}` }
          : { kind: "message", tone: "warning", text: `${grantee(result.grant, spec)} already had ${result.grant.relation} on ${result.space.key}: the grant already existed, nothing changed` },
        ...grantsView(result)
      ]
    })
  }
})
