import { requireId, resolveSpace } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { curationView } from "../../../views/graph"

interface Flags { readonly space?: string; readonly into?: string; readonly reason?: string }

export default defineCommand({
  description: "merge an entity into another: it becomes an alias (its evidence and relations count for the other)",
  examples: ["lore graph curate alias --space eng <entityId> --into <entityId>"],
  configure: (command) =>
    command
      .argument("<entityId>", "the entity merged away")
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--into <entityId>", "the entity it is merged into (required)")
      .option("--reason <text>", "why (kept in the curation's provenance)"),
  run: async (runtime, command) => {
    const [entityId] = command.processedArgs as [string]
    const flags = command.opts<Flags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    if (!flags.into) throw usageError("missing --into: pass --into <entityId>")
    const hint = "lore --json graph explore shows entity ids"
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    const body = { entityId: requireId(entityId, "entity", hint), intoEntityId: requireId(flags.into, "entity", hint), ...(flags.reason ? { reason: flags.reason } : {}) }
    await present(runtime, { progress: "Curating", run: () => lore.graph.curateAlias(space.id, body), view: curationView })
  }
})
