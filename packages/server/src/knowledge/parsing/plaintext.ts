import { decodeText } from "./text"
import type { Block } from "./types"

/**
 * Plain text: paragraphs are separated by blank lines; a form feed (\f) starts a new page, which
 * is how pdftotext and line printers mark pages. Without form feeds the text has no pages.
 */
export const parsePlainText = (bytes: Uint8Array): { readonly blocks: ReadonlyArray<Block>; readonly pages: number | undefined } => {
  const text = decodeText(bytes).replace(/\r\n?/g, "\n")
  const pages = text.split("\f")
  // pdftotext ends every page, including the last, with a form feed.
  if (pages.length > 1 && pages[pages.length - 1]!.trim() === "") pages.pop()
  const paged = pages.length > 1
  const blocks: Block[] = []
  pages.forEach((pageText, index) => {
    for (const paragraph of pageText.split(/\n[ \t]*\n/)) {
      const cleaned = paragraph.replace(/[ \t]+$/gm, "").replace(/^\n+|\s+$/g, "")
      if (cleaned.trim() === "") continue
      blocks.push(paged ? { kind: "text", text: cleaned, page: index + 1 } : { kind: "text", text: cleaned })
    }
  })
  return { blocks, pages: paged ? pages.length : undefined }
}
