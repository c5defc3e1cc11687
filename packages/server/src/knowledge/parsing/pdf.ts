import { getDocumentProxy } from "unpdf"
import { MAX_PDF_PAGES, ParseLimitExceeded } from "./limits"
import type { Block } from "./types"

/**
 * PDF text through unpdf (PDF.js). Pages are read one at a time so a deadline can stop a long
 * document between pages. PDF has no headings as such: a line set noticeably larger than the body
 * text (the most common font size) is taken as a heading, larger sizes being outer levels.
 */

interface Line {
  text: string
  size: number
  y: number
  page: number
}

export interface PdfContent {
  readonly title?: string
  readonly blocks: ReadonlyArray<Block>
  readonly pageCount: number
}

export class PdfDeadlineExceeded extends Error {}

export const parsePdf = async (bytes: Uint8Array, deadline: number): Promise<PdfContent> => {
  // A copy: PDF.js may take ownership of (detach) the buffer it is given.
  const pdf = await getDocumentProxy(new Uint8Array(bytes), { verbosity: 0 })
  try {
    if (pdf.numPages > MAX_PDF_PAGES) throw new ParseLimitExceeded(`it has ${pdf.numPages} pages (Lore reads at most ${MAX_PDF_PAGES} from one PDF)`)
    const lines: Line[] = []
    for (let page = 1; page <= pdf.numPages; page++) {
      if (Date.now() > deadline) throw new PdfDeadlineExceeded()
      const proxy = await pdf.getPage(page)
      const content = await proxy.getTextContent()
      lines.push(...toLines(content.items, page))
      proxy.cleanup()
    }
    const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined
    const declaredTitle = typeof info?.Title === "string" ? info.Title.trim() : ""
    const blocks = toBlocks(lines)
    const title = usefulTitle(declaredTitle) ?? blocks.find((block) => block.kind === "heading")?.text
    return title === undefined ? { blocks, pageCount: pdf.numPages } : { title, blocks, pageCount: pdf.numPages }
  } finally {
    await pdf.loadingTask.destroy().catch(() => undefined)
  }
}

/** Word processors often write placeholders as the PDF title. */
const usefulTitle = (title: string): string | undefined =>
  title === "" || /^(untitled|microsoft word - |document\d*$)/i.test(title) ? undefined : title

interface RawItem {
  str?: string
  transform?: ReadonlyArray<number>
  width?: number
  hasEOL?: boolean
}

/** Groups the page's text items into lines by baseline, inserting spaces at visible gaps. */
const toLines = (items: ReadonlyArray<unknown>, page: number): Line[] => {
  const lines: Line[] = []
  let current: Line | undefined
  let end = 0
  for (const raw of items as ReadonlyArray<RawItem>) {
    if (typeof raw.str !== "string" || raw.transform === undefined) continue
    const [, , c = 0, d = 0, x = 0, y = 0] = raw.transform
    const size = Math.hypot(c, d) || 1
    if (raw.str !== "") {
      if (current !== undefined && Math.abs(current.y - y) > Math.max(1, 0.4 * Math.min(size, current.size))) {
        lines.push(current)
        current = undefined
      }
      if (current === undefined) {
        current = { text: raw.str, size, y, page }
      } else {
        const gap = x - end > 0.15 * size && !current.text.endsWith(" ") && !raw.str.startsWith(" ")
        current.text += (gap ? " " : "") + raw.str
        if (raw.str.trim() !== "" && size > current.size) current.size = size
      }
      end = x + (raw.width ?? 0)
    }
    if (raw.hasEOL && current !== undefined) {
      lines.push(current)
      current = undefined
    }
  }
  if (current !== undefined) lines.push(current)
  return lines
    .map((line) => ({ ...line, text: line.text.replace(/\s+/g, " ").trim() }))
    .filter((line) => line.text !== "" && !PAGE_NUMBER.test(line.text))
}

/** Running page numbers ("7", "- 7 -", "Page 7 of 12") carry nothing worth indexing. */
const PAGE_NUMBER = /^(?:-\s*)?(?:page\s+)?\d{1,5}(?:\s*(?:of|\/)\s*\d{1,5})?(?:\s*-)?$/i

const round = (size: number) => Math.round(size * 2) / 2

const toBlocks = (lines: ReadonlyArray<Line>): Block[] => {
  // Body size: the size carrying the most characters.
  const weight = new Map<number, number>()
  for (const line of lines) weight.set(round(line.size), (weight.get(round(line.size)) ?? 0) + line.text.length)
  const body = [...weight.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 0
  const isHeading = (line: Line) =>
    line.size >= body * 1.15 && /\p{L}/u.test(line.text) && line.text.split(" ").length <= 20
  const headingSizes = [...new Set(lines.filter(isHeading).map((line) => round(line.size)))].sort((a, b) => b - a)
  const levelOf = (line: Line) => Math.min(6, headingSizes.indexOf(round(line.size)) + 1)

  const blocks: Block[] = []
  let paragraph: Line[] = []
  let paragraphIsHeading = false
  const flush = () => {
    if (paragraph.length === 0) return
    const first = paragraph[0]!
    const text = paragraph.slice(1).reduce((acc, line) => joinLines(acc, line.text), first.text)
    // A long run of large type is display text (a pull quote, a cover blurb), not a heading.
    const heading = paragraphIsHeading && text.split(" ").length <= 30
    blocks.push(heading ? { kind: "heading", text, level: levelOf(first), page: first.page } : { kind: "text", text, page: first.page })
    paragraph = []
  }
  for (const line of lines) {
    const heading = isHeading(line)
    const previous = paragraph[paragraph.length - 1]
    const continues =
      previous !== undefined &&
      previous.page === line.page &&
      heading === paragraphIsHeading &&
      Math.abs(previous.size - line.size) <= 0.1 * previous.size &&
      previous.y - line.y > 0 &&
      previous.y - line.y <= 1.6 * Math.max(previous.size, line.size)
    if (!continues) {
      flush()
      paragraphIsHeading = heading
    }
    paragraph.push(line)
  }
  flush()
  return blocks
}

/** Joins wrapped lines, undoing end-of-line hyphenation ("reimburse-" + "ment"). */
const joinLines = (text: string, next: string): string =>
  /\p{Ll}-$/u.test(text) && /^\p{Ll}/u.test(next) ? text.slice(0, -1) + next : `${text} ${next}`
