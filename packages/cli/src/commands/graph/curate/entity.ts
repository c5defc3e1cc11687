import { requireId, resolveSpace } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { curationView } from "../../../views/graph"

interface Flags { readonly space?: string; readonly id?: string; readonly name?: string; readonly type?: string; readonly description?: string; readonly reason?: string }

export default defineCommand({
  description: "add an entity to the graph, or correct one (--id): name, type, description",
  examples: ["lore graph curate entity --space eng --name \"Project Nightingale\" --type TOPIC", "lore graph curate entity --space eng --id <entityId> --name \"Dr. Alice Johnson\" --type PERSON --reason title"],
  configure: (command) =>
    command
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--id <entityId>", "the entity to correct (lore --json graph explore shows ids)")
      .option("--name <name>", "the entity's name (required)")
      .option("--type <type>", "PERSON, ORGANIZATION, LOCATION, TOPIC or your own (required)")
      .option("--description <text>", "a description replacing the extracted ones")
      .option("--reason <text>", "why (kept in the curation's provenance)"),
  run: async (runtime, command) => {
    const flags = command.opts<Flags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    if (!flags.name || !flags.type) throw usageError("missing --name or --type: pass both")
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    const body = {
      name: flags.name, type: flags.type,
      ...(flags.id ? { entityId: requireId(flags.id, "entity", "lore --json graph explore shows entity ids") } : {}),
      ...(flags.description ? { description: flags.description } : {}),
      ...(flags.reason ? { reason: flags.reason } : {})
    }
    await present(runtime, { progress: "Curating", run: () => lore.graph.curateEntity(space.id, body), view: curationView })
  }
})
