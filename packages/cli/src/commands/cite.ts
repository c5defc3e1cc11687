import type { CitationExcerpt } from "@lore/sdk"
import type { Command } from "commander"
import { type CommandModule, handler } from "../command"
import type { LoreClient } from "../context"
import { usageError } from "../errors"
import { safeFileName, saveDownload } from "../output/files"
import { present } from "../output/render"
import { styled, type View } from "../output/view"
import { pagesLabel } from "./search"
import { requireUuid, savedView } from "./sources"

/** The cited passage with its surrounding context (404, exit 5, once the caller may no longer see it). */
export const citeExcerpt = (lore: LoreClient, citationId: string): Promise<CitationExcerpt> => lore.citations.excerpt(citationId)

/** The cited document's original bytes, saved like `sources open` does. */
export const citeContent = async (lore: LoreClient, citationId: string, target: { readonly output: string | undefined; readonly force: boolean }) => {
  const file = await lore.citations.content(citationId)
  const saved = await saveDownload(file.bytes, { output: target.output, force: target.force, fileName: safeFileName(file.fileName, `citation-${citationId}`) })
  return { citationId, ...saved, mediaType: file.mediaType, startPage: file.startPage }
}

export const excerptView = (excerpt: CitationExcerpt): View => [
  { kind: "heading", text: excerpt.title },
  {
    kind: "fields",
    fields: [
      ["Section", excerpt.heading ?? "-"],
      ["Pages", pagesLabel(excerpt.startPage, excerpt.endPage) ?? "-"],
      ["Kind", excerpt.presentationKind],
      ["Citation", styled(excerpt.citationId, "muted")]
    ]
  },
  { kind: "message", text: "" },
  { kind: "message", text: excerpt.excerpt.trim() },
  ...(excerpt.truncated ? [{ kind: "message" as const, tone: "muted" as const, text: "(excerpt shortened; --content downloads the whole document)" }] : [])
]

export const citeCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("cite")
      .description("show the passage a citation id (from 'lore search') points at, or download its document")
      .argument("<citationId>", "the citation id")
      .option("--content", "download the cited document instead of showing the excerpt")
      .option("-o, --output <path>", "with --content: file or directory to write to; - for stdout")
      .option("-f, --force", "with --content: overwrite an existing file")
      .action(
        handler(async (runtime, command) => {
          const [citationId] = command.processedArgs as [string]
          requireUuid(citationId, "citation", "'lore search' shows citation ids")
          const flags = command.opts<{ content?: boolean; output?: string; force?: boolean }>()
          if (!flags.content && (flags.output !== undefined || flags.force)) throw usageError("--output and --force apply only with --content")
          if (flags.output === "-" && runtime.output === "json") throw usageError("--output - writes the file to stdout, which --json needs for its document; pass a path")
          const lore = runtime.client({ requireToken: true })
          if (!flags.content) {
            await present(runtime, { progress: "Loading the excerpt", run: () => citeExcerpt(lore, citationId), view: excerptView })
            return
          }
          const download = () => citeContent(lore, citationId, { output: flags.output, force: flags.force ?? false })
          if (flags.output === "-") await download()
          else {
            await present(runtime, {
              progress: "Downloading",
              run: download,
              view: (saved) => [...savedView(saved), ...(saved.startPage ? [{ kind: "message" as const, tone: "muted" as const, text: `The passage begins on page ${saved.startPage}.` }] : [])]
            })
          }
        })
      )
  }
}
