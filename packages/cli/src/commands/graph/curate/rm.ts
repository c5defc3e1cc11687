import { parseCount, requireId, resolveSpace } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"

interface Flags { readonly space?: string; readonly reason?: string; readonly generation?: number }

export default defineCommand({
  description: "remove a curation (the graph shows the extraction again); refused (409) when access changed since you looked",
  examples: ["lore graph curate rm --space eng <curationId> --reason \"merged by mistake\"", "lore graph curate rm --space eng <curationId> --reason undo --generation 42"],
  notes: "Without --generation the current authorization generation is read first (what you see now is what you decide on).",
  configure: (command) =>
    command
      .argument("<curationId>", "the curation's id")
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--reason <text>", "why (required; audited)")
      .option("--generation <n>", "the authorizationGeneration you decided on (lore --json graph explore reports it)", parseCount(0, Number.MAX_SAFE_INTEGER)),
  run: async (runtime, command) => {
    const [curationId] = command.processedArgs as [string]
    const flags = command.opts<Flags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    if (!flags.reason) throw usageError("missing --reason: pass --reason <text> (it is audited)")
    requireId(curationId, "curation", "lore --json graph curate ... answers curation ids")
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    await present(runtime, {
      progress: "Removing the curation",
      run: async () => {
        const generation = flags.generation ?? (await lore.graph.explore(space.id, { entityLimit: 1, maxDepth: 0 })).authorizationGeneration
        await lore.graph.removeCuration(space.id, curationId, { authorizationGeneration: generation, reason: flags.reason! })
        return { curationId, removed: true, authorizationGeneration: generation }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Removed curation ${result.curationId}` }]
    })
  }
})
