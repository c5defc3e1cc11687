import { parseCount, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { explorerView } from "../../views/graph"

interface ExploreFlags {
  readonly space?: string
  readonly depth?: number
  readonly limit?: number
}

export default defineCommand({
  description: "explore a knowledge space's graph from the entities matching a query: an indented tree (JSON with --json)",
  examples: [
    "lore graph explore \"Alice Johnson\" --space eng",
    "lore graph explore Acme --space eng --depth 2 --limit 100",
    "lore --json graph explore Acme --space eng | jq '.entities[].name'"
  ],
  notes: "Only entities and relations with evidence you may read are shown, with descriptions and citations from that evidence alone.",
  configure: (command) =>
    command
      .argument("[query]", "matched against names, aliases and descriptions (empty: the most mentioned entities)", "")
      .option("--space <key|id>", "the knowledge space (required)")
      .option("--depth <n>", "relation hops from the matches, 0..4 (default 1)", parseCount(0, 4))
      .option("--limit <n>", "entities at most, 1..500 (default 50)", parseCount(1, 500)),
  run: async (runtime, command) => {
    const [q] = command.processedArgs as [string]
    const flags = command.opts<ExploreFlags>()
    if (!flags.space) throw usageError("missing --space: pass --space <key|id> (lore status lists your spaces)")
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "read")
    await present(runtime, {
      progress: "Exploring the graph",
      run: () => lore.graph.explore(space.id, { q, ...(flags.depth === undefined ? {} : { maxDepth: flags.depth }), ...(flags.limit === undefined ? {} : { entityLimit: flags.limit }) }),
      view: explorerView
    })
  }
})
