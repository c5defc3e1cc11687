import { type Classification, classificationValues } from "@lore/sdk"
import { oneOf, resolveSpace } from "../arguments"
import { defineCommand } from "../command"
import type { LoreClient } from "../context"
import { present } from "../output/present"
import { formatDate, type View } from "../output/view"
import { idCell } from "../views/users"

type CatalogEntries = Awaited<ReturnType<LoreClient["knowledge"]["catalog"]>>

export interface Catalog {
  readonly entries: CatalogEntries
  /** Space keys by id, for people (entries carry only the id). */
  readonly spaceKeys: Readonly<Record<string, string>>
}

export const catalogView = ({ entries, spaceKeys }: Catalog): View => [
  {
    kind: "table",
    columns: [
      { header: "title", fit: "text" },
      { header: "version", align: "right" },
      { header: "classification" },
      { header: "space" },
      { header: "media type", fit: "optional" },
      { header: "updated", fit: "optional" },
      { header: "asset id" }
    ],
    rows: entries.map((entry) => [
      entry.title,
      `v${entry.versionNumber}`,
      entry.classification,
      spaceKeys[entry.knowledgeSpaceId] ?? entry.knowledgeSpaceId,
      entry.mediaType,
      formatDate(entry.updatedAt),
      idCell(entry.knowledgeAssetId)
    ]),
    empty: "The catalog is empty: no documents you can read."
  }
]

export default defineCommand({
  description: "list the documents you may read (latest version of each)",
  helpGroup: "Knowledge",
  examples: ["lore catalog", "lore catalog --space general --classification INTERNAL", "lore --json catalog | jq -r '.[].title'"],
  configure: (command) =>
    command
      .option("--space <key|id>", "only this knowledge space")
      .option("--classification <level>", `only this classification: ${classificationValues.join(", ")}`, oneOf(classificationValues)),
  run: async (runtime, command) => {
    const flags = command.opts<{ space?: string; classification?: Classification }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading the catalog",
      run: async (): Promise<Catalog> => {
        const [visible, space] = await Promise.all([lore.knowledgeSpaces.visible(), flags.space ? resolveSpace(lore, flags.space, "read") : undefined])
        const entries = await lore.knowledge.catalog({ knowledgeSpaceId: space?.id, classification: flags.classification })
        return { entries, spaceKeys: Object.fromEntries(visible.map((ref) => [ref.id, ref.key])) }
      },
      view: catalogView,
      json: (result) => result.entries
    })
  }
})
