import { requireId, resolveSpace } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { curationView } from "../../../views/graph"

interface Flags { readonly space?: string; readonly entity?: string; readonly relation?: string; readonly reason?: string }

export default defineCommand({
  description: "hide an entity or a relation from the graph (for everyone; rm the curation to show it again)",
  examples: ["lore graph curate suppress --space eng --entity <entityId> --reason noise", "lore graph curate suppress --space eng --relation <relationId>"],
  configure: (command) =>
    command
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--entity <entityId>", "the entity to hide")
      .option("--relation <relationId>", "the relation to hide")
      .option("--reason <text>", "why (kept in the curation's provenance)"),
  run: async (runtime, command) => {
    const flags = command.opts<Flags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    if ((flags.entity === undefined) === (flags.relation === undefined)) throw usageError("pass exactly one of --entity <id> and --relation <id>")
    const hint = "lore --json graph explore shows entity and relation ids"
    const body = flags.entity !== undefined
      ? { kind: "ENTITY" as const, id: requireId(flags.entity, "entity", hint) }
      : { kind: "RELATION" as const, id: requireId(flags.relation!, "relation", hint) }
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    await present(runtime, { progress: "Curating", run: () => lore.graph.suppress(space.id, { ...body, ...(flags.reason ? { reason: flags.reason } : {}) }), view: curationView })
  }
})
