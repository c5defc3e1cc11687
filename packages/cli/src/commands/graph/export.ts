import { writeFile } from "node:fs/promises"
import { type GraphExportFormat, graphExportFormatValues } from "@lore/sdk"
import { oneOf, parseCount, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"

interface ExportFlags {
  readonly space?: string
  readonly format: GraphExportFormat
  readonly output?: string
  readonly query?: string
  readonly depth?: number
  readonly limit?: number
}

export default defineCommand({
  description: "export what you may see of a knowledge space's graph: JSON, CSV, MARKDOWN (with a Mermaid diagram) or TEXT",
  examples: [
    "lore graph export --space eng --format MARKDOWN -o graph.md",
    "lore graph export --space eng --format CSV > graph.csv"
  ],
  notes: "Without -o the export goes to stdout. CSV holds two sections, '# entities' then '# relations'.",
  configure: (command) =>
    command
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--format <format>", graphExportFormatValues.join(", "), oneOf(graphExportFormatValues), "JSON")
      .option("-o, --output <file>", "write to this file")
      .option("--query <q>", "only the entities matching this, and their neighbours")
      .option("--depth <n>", "relation hops, 0..4 (default 1)", parseCount(0, 4))
      .option("--limit <n>", "entities at most, 1..5000 (default 1000)", parseCount(1, 5000)),
  run: async (runtime, command) => {
    const flags = command.opts<ExportFlags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id>")
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    const text = await lore.graph.export(space.id, flags.format, {
      ...(flags.query ? { q: flags.query } : {}),
      ...(flags.depth === undefined ? {} : { maxDepth: flags.depth }),
      ...(flags.limit === undefined ? {} : { entityLimit: flags.limit })
    })
    if (!flags.output) {
      process.stdout.write(text)
      return
    }
    const output = flags.output
    await present(runtime, {
      progress: `Writing ${output}`,
      run: async () => {
        await writeFile(output, text)
        return { path: output, bytes: Buffer.byteLength(text), format: flags.format }
      },
      view: (saved) => [{ kind: "message", tone: "success", text: `Saved the ${saved.format} export (${saved.bytes} bytes) to ${saved.path}` }]
    })
  }
})
