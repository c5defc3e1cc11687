import type { CitationExcerpt } from "@lore/sdk"
import { requireId } from "../arguments"
import { defineCommand } from "../command"
import { usageError } from "../errors"
import { safeFileName, saveDownload } from "../files"
import { citedSegments } from "../output/highlight"
import { present } from "../output/present"
import { type Block, styled, type View } from "../output/view"
import { pagesLabel, savedView } from "../views/sources"

/**
 * The excerpt, trimmed, with the cited passage marked: the server's offsets (`highlightStart`,
 * `highlightEnd`, in UTF-16 code units of `excerpt`, as JavaScript strings count) moved by what the
 * trimming removed.
 */
export const excerptSegments = (excerpt: CitationExcerpt) => {
  const lead = excerpt.excerpt.length - excerpt.excerpt.trimStart().length
  const text = excerpt.excerpt.trim()
  const shift = (offset: number | undefined) => (offset === undefined ? undefined : offset - lead)
  return citedSegments(text, shift(excerpt.highlightStart), shift(excerpt.highlightEnd))
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
  { kind: "blank" },
  { kind: "passage", segments: excerptSegments(excerpt) },
  ...(excerpt.truncated ? [{ kind: "hint", text: "(excerpt shortened; --content downloads the whole document)" } satisfies Block] : [])
]

export default defineCommand({
  description: "show the passage a citation id (from 'lore search') points at, or download its document",
  helpGroup: "Knowledge",
  examples: ["lore cite <citationId>", "lore cite <citationId> --content -o ~/Downloads/", "lore cite <citationId> | grep -o '»[^«]*«'   # the cited passage, piped"],
  configure: (command) =>
    command
      .argument("<citationId>", "the citation id ('lore search' shows them)")
      .option("--content", "download the cited document instead of showing the excerpt")
      .option("-o, --output <path>", "with --content: file or directory to write to; - for stdout")
      .option("-f, --force", "with --content: overwrite an existing file"),
  run: async (runtime, command) => {
    const [citationId] = command.processedArgs as [string]
    requireId(citationId, "citation", "'lore search' shows citation ids")
    const flags = command.opts<{ content?: boolean; output?: string; force?: boolean }>()
    if (!flags.content && (flags.output !== undefined || flags.force)) throw usageError("--output and --force apply only with --content")
    if (flags.output === "-" && runtime.output === "json") throw usageError("--output - writes the file to stdout, which --json needs for its document; pass a path")
    const lore = runtime.client({ requireToken: true })
    if (!flags.content) {
      await present(runtime, { progress: "Loading the excerpt", run: () => lore.citations.excerpt(citationId), view: excerptView })
      return
    }
    const download = async () => {
      const file = await lore.citations.content(citationId)
      const saved = await saveDownload(file.bytes, { output: flags.output, force: flags.force ?? false, fileName: safeFileName(file.fileName, `citation-${citationId}`) })
      return { citationId, ...saved, mediaType: file.mediaType, startPage: file.startPage }
    }
    if (flags.output === "-") await download()
    else {
      await present(runtime, {
        progress: "Downloading",
        run: download,
        view: (saved) => [...savedView(saved), ...(saved.startPage ? [{ kind: "hint", text: `The passage begins on page ${saved.startPage}.` } satisfies Block] : [])]
      })
    }
  }
})
