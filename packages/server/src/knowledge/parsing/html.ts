import { Parser } from "htmlparser2"
import { decodeText, squash } from "./text"
import { MAX_HTML_DEPTH, MAX_HTML_ELEMENTS, ParseLimitExceeded } from "./limits"
import type { Block } from "./types"

/** Subtrees that are never content: code, chrome, and things a reader does not see. */
const SKIPPED = new Set(["script", "style", "nav", "template", "noscript", "svg", "math", "iframe", "object", "canvas", "select", "button"])
/** Elements that end the text run before them and start a new one. */
const BLOCKS = new Set([
  "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "pre", "blockquote", "section", "article", "main", "header", "footer",
  "aside", "table", "thead", "tbody", "tfoot", "tr", "caption", "figure", "figcaption", "form", "fieldset", "address",
  "details", "summary", "hr", "body", "center"
])
const HEADING = /^h([1-6])$/

/** Class mammoth gives the Word "Title" paragraph (see docx.ts) so it becomes the title, not body text. */
export const DOCUMENT_TITLE_CLASS = "lore-document-title"

export interface HtmlContent {
  readonly title?: string
  readonly blocks: ReadonlyArray<Block>
}

/**
 * Walks HTML with htmlparser2 (entities decoded, implied end tags handled) and keeps the readable
 * text as blocks: h1-h6 become headings; paragraphs, list items, table rows and preformatted text
 * become text blocks.
 */
export const htmlToBlocks = (html: string): HtmlContent => {
  const blocks: Block[] = []
  let parts: string[] = []
  let skipDepth = 0
  let preDepth = 0
  let heading: number | undefined
  let firstH1: string | undefined
  let titleParts: string[] | undefined
  let titleText: string | undefined
  let titleTag: string | undefined
  let cellsInRow = 0
  let cellDepth = 0
  // Work limits: htmlparser2 keeps a stack of open elements, and every element costs a callback.
  let depth = 0
  let elements = 0

  const flush = () => {
    if (parts.length === 0) return
    const raw = parts.join("")
    parts = []
    const text = heading === undefined && preDepth > 0
      ? raw.replace(/^\n+|\s+$/g, "")
      : raw.split("\n").map(squash).filter((line) => line !== "").join("\n")
    if (text === "") return
    if (heading !== undefined) {
      const line = text.replace(/\n/g, " ")
      blocks.push({ kind: "heading", text: line, level: heading })
      if (heading === 1 && firstH1 === undefined) firstH1 = line
    } else {
      blocks.push({ kind: "text", text })
    }
  }

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (++elements > MAX_HTML_ELEMENTS) throw new ParseLimitExceeded(`it holds more than ${MAX_HTML_ELEMENTS} HTML elements`)
        if (++depth > MAX_HTML_DEPTH) throw new ParseLimitExceeded(`its HTML nests elements more than ${MAX_HTML_DEPTH} deep`)
        if (skipDepth > 0 || SKIPPED.has(name) || "hidden" in attribs || attribs["aria-hidden"] === "true") {
          skipDepth++
          return
        }
        if (titleParts !== undefined) return
        if (name === "title" || (attribs.class ?? "").split(/\s+/).includes(DOCUMENT_TITLE_CLASS)) {
          flush()
          titleParts = []
          titleTag = name
          return
        }
        const level = HEADING.exec(name)
        if (level) {
          flush()
          heading = Number(level[1])
        } else if (cellDepth > 0 && BLOCKS.has(name) && name !== "table" && name !== "tr") {
          // Paragraphs inside a table cell (as Word writes them) stay part of the row.
          parts.push(" ")
        } else if (BLOCKS.has(name)) {
          flush()
          if (name === "tr") cellsInRow = 0
          if (name === "pre") preDepth++
        } else if (name === "td" || name === "th") {
          cellDepth++
          if (cellsInRow++ > 0) parts.push(" | ")
        } else if (name === "br") {
          parts.push("\n")
        }
      },
      onclosetag(name) {
        depth = Math.max(0, depth - 1)
        if (skipDepth > 0) {
          skipDepth--
          return
        }
        if (titleParts !== undefined) {
          if (name === titleTag) {
            titleText ??= squash(titleParts.join("")) || undefined
            titleParts = undefined
          }
          return
        }
        if (HEADING.test(name)) {
          flush()
          heading = undefined
        } else if (name === "td" || name === "th") {
          cellDepth = Math.max(0, cellDepth - 1)
        } else if (cellDepth > 0 && BLOCKS.has(name) && name !== "table" && name !== "tr") {
          parts.push(" ")
        } else if (BLOCKS.has(name)) {
          flush()
          if (name === "pre") preDepth = Math.max(0, preDepth - 1)
        }
      },
      ontext(data) {
        if (skipDepth > 0) return
        if (titleParts !== undefined) titleParts.push(data)
        else parts.push(preDepth > 0 ? data : data.replace(/\s+/g, " "))
      }
    },
    { decodeEntities: true }
  )
  parser.write(html)
  parser.end()
  flush()
  const title = titleText ?? firstH1
  return title === undefined ? { blocks } : { title, blocks }
}

export const parseHtml = (bytes: Uint8Array): HtmlContent => htmlToBlocks(decodeText(bytes))
