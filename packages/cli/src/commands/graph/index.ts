import { defineGroup } from "../../command"

export default defineGroup({
  description: "the knowledge graph: index assets, follow jobs, explore what you may see, curate, export",
  helpGroup: "Knowledge",
  examples: [
    "lore graph index <knowledgeAssetId>           # queues extraction and shows progress until it ends",
    "lore graph explore \"Alice Johnson\" --space eng --depth 2",
    "lore graph export --space eng --format MARKDOWN -o graph.md"
  ]
})
