import { type Classification, classificationValues, type Source, type SourcePage, type SourceQuery, sourceStatusValues, type SourceStatus } from "@lore/sdk"
import { atMostOne, oneOf, parseCount, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import type { LoreClient } from "../../context"
import { present } from "../../output/present"
import { type Block, formatDate, styled, type View } from "../../output/view"
import { sourceStatusTone } from "../../views/sources"
import { idCell } from "../../views/users"

export interface SourceListing {
  readonly items: ReadonlyArray<Source>
  /** All sources matching the filters, and their statuses, as the first page counted them. */
  readonly total: number
  readonly statusCounts: SourcePage["statusCounts"]
  /** Where to continue (more exist), or null when the list is complete. */
  readonly nextCursor: string | null
}

/** Up to `limit` sources (undefined: all of them), newest first, fetched in pages of up to 200. */
export const listSources = async (lore: LoreClient, filters: Omit<SourceQuery, "cursor" | "pageSize">, limit: number | undefined): Promise<SourceListing> => {
  const items: Array<Source> = []
  let first: SourcePage | undefined
  let cursor: string | undefined
  for (;;) {
    const pageSize = limit === undefined ? 200 : Math.min(200, limit - items.length)
    const page = await lore.sources.list({ ...filters, pageSize, ...(cursor ? { cursor } : {}) })
    first ??= page
    items.push(...page.items)
    const next = page.nextCursor ?? undefined
    const done = next === undefined || next === cursor || (limit !== undefined && items.length >= limit)
    cursor = next
    if (done) return { items, total: first.total, statusCounts: first.statusCounts, nextCursor: next ?? null }
  }
}

export const sourcesView = (listing: SourceListing): View => {
  const view: Array<Block> = [
    {
      kind: "table",
      columns: [
        { header: "id" },
        { header: "title", fit: "text" },
        { header: "status" },
        { header: "classification" },
        { header: "space" },
        { header: "version", align: "right", fit: "optional" },
        { header: "chunks", align: "right", fit: "optional" },
        { header: "updated", fit: "optional" }
      ],
      rows: listing.items.map((source) => [
        idCell(source.id),
        source.title,
        styled(source.status, sourceStatusTone(source.status)),
        source.classification,
        source.knowledgeSpaceKey,
        `v${source.versionNumber}`,
        source.chunkCount === null ? "-" : String(source.chunkCount),
        formatDate(source.updatedAt)
      ]),
      empty: "No sources."
    }
  ]
  if (listing.nextCursor) {
    const { ready, processing, attention } = listing.statusCounts
    view.push({ kind: "hint", text: `Showing ${listing.items.length} of ${listing.total} (${ready} ready, ${processing} processing, ${attention} attention); --all or --limit N for more.` })
  }
  return view
}

interface ListFlags {
  readonly space?: string
  readonly status?: SourceStatus
  readonly classification?: Classification
  readonly q?: string
  readonly limit?: number
  readonly all?: boolean
}

export default defineCommand({
  description: "list the sources you can see, newest first",
  isDefault: true,
  examples: [
    "lore sources list --space general --status ATTENTION",
    "lore sources list --q handbook --all",
    "lore --json sources list --limit 100 | jq -r '.items[].id'"
  ],
  configure: (command) =>
    command
      .option("--space <key|id>", "only this knowledge space")
      .option("--status <status>", `only this status: ${sourceStatusValues.join(", ")}`, oneOf(sourceStatusValues))
      .option("--classification <level>", `only this classification: ${classificationValues.join(", ")}`, oneOf(classificationValues))
      .option("--q <text>", "only titles or file names containing this text")
      .option("--limit <n>", "at most this many (default 25)", parseCount(1, 100_000))
      .option("--all", "every matching source (fetched page by page)"),
  run: async (runtime, command) => {
    const flags = command.opts<ListFlags>()
    atMostOne({ "--limit": flags.limit, "--all": flags.all })
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading sources",
      run: async () => {
        const space = flags.space ? await resolveSpace(lore, flags.space, "read") : undefined
        const filters = { knowledgeSpaceId: space?.id, status: flags.status, classification: flags.classification, q: flags.q }
        return listSources(lore, filters, flags.all ? undefined : (flags.limit ?? 25))
      },
      view: sourcesView
    })
  }
})
