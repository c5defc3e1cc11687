import type { CatalogEntry, Classification } from "@lore/sdk"
import type { Command } from "commander"
import { type CommandModule, handler } from "../command"
import type { LoreClient } from "../context"
import { present } from "../output/render"
import { formatDate, styled, type View } from "../output/view"
import { parseClassification, resolveSpace } from "./sources"

export interface CatalogInput {
  /** A space key or id, among the spaces the caller can see. */
  readonly space?: string | undefined
  readonly classification?: Classification | undefined
}

export interface Catalog {
  readonly entries: ReadonlyArray<CatalogEntry>
  /** Space keys by id, for people (entries carry only the id). */
  readonly spaceKeys: Readonly<Record<string, string>>
}

/** The latest version of each knowledge asset the caller may read. */
export const catalog = async (lore: LoreClient, input: CatalogInput): Promise<Catalog> => {
  const [visible, space] = await Promise.all([
    lore.knowledgeSpaces.visible(),
    input.space ? resolveSpace(lore, input.space, "read") : Promise.resolve(undefined)
  ])
  const entries = await lore.knowledge.catalog({ knowledgeSpaceId: space?.id, classification: input.classification })
  return { entries, spaceKeys: Object.fromEntries(visible.map((ref) => [ref.id, ref.key])) }
}

export const catalogView = ({ entries, spaceKeys }: Catalog): View => [
  {
    kind: "table",
    columns: [{ header: "title" }, { header: "version", align: "right" }, { header: "classification" }, { header: "space" }, { header: "media type" }, { header: "updated" }, { header: "asset id" }],
    rows: entries.map((entry) => [
      entry.title,
      `v${entry.versionNumber}`,
      entry.classification,
      spaceKeys[entry.knowledgeSpaceId] ?? entry.knowledgeSpaceId,
      entry.mediaType,
      formatDate(entry.updatedAt),
      styled(entry.knowledgeAssetId, "muted")
    ]),
    empty: "The catalog is empty: no documents you can read."
  }
]

export const catalogCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("catalog")
      .description("list the documents you may read (latest version of each)")
      .option("--space <key|id>", "only this knowledge space")
      .option("--classification <level>", "only this classification", parseClassification)
      .action(
        handler(async (runtime, command) => {
          const flags = command.opts<{ space?: string; classification?: Classification }>()
          const lore = runtime.client({ requireToken: true })
          await present(runtime, { progress: "Loading the catalog", run: () => catalog(lore, flags), view: catalogView, json: (result) => result.entries })
        })
      )
  }
}
