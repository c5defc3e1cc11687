import { requireId, resolveSpace } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { curationView } from "../../../views/graph"

interface Flags { readonly space?: string; readonly id?: string; readonly source?: string; readonly target?: string; readonly type?: string; readonly description?: string; readonly weight?: string; readonly reason?: string }

export default defineCommand({
  description: "add a relation between two entities, or correct one (--id)",
  examples: ["lore graph curate relation --space eng --source <entityId> --target <entityId> --type LEADS"],
  configure: (command) =>
    command
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--id <relationId>", "the relation to correct")
      .option("--source <entityId>", "the source entity (required)")
      .option("--target <entityId>", "the target entity (required)")
      .option("--type <type>", "the relation's type, e.g. LEADS (required)")
      .option("--description <text>", "a description replacing the extracted ones")
      .option("--weight <n>", "0..100")
      .option("--reason <text>", "why (kept in the curation's provenance)"),
  run: async (runtime, command) => {
    const flags = command.opts<Flags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    if (!flags.source || !flags.target || !flags.type) throw usageError("missing --source, --target or --type: pass all three")
    const hint = "lore --json graph explore shows entity and relation ids"
    const weight = flags.weight === undefined ? undefined : Number(flags.weight)
    if (weight !== undefined && !(weight >= 0 && weight <= 100)) throw usageError(`--weight must be a number from 0 to 100, not '${flags.weight}'`)
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    const body = {
      sourceEntityId: requireId(flags.source, "entity", hint), targetEntityId: requireId(flags.target, "entity", hint), type: flags.type,
      ...(flags.id ? { relationId: requireId(flags.id, "relation", hint) } : {}),
      ...(flags.description ? { description: flags.description } : {}),
      ...(weight === undefined ? {} : { weight }),
      ...(flags.reason ? { reason: flags.reason } : {})
    }
    await present(runtime, { progress: "Curating", run: () => lore.graph.curateRelation(space.id, body), view: curationView })
  }
})
