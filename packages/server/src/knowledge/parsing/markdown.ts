import type { Nodes } from "mdast"
import { fromMarkdown } from "mdast-util-from-markdown"
import { htmlToBlocks, type HtmlContent } from "./html"
import { decodeText, squash } from "./text"
import { MAX_MARKDOWN_CHARS, MAX_MARKDOWN_DEPTH, MAX_MARKDOWN_INLINE_MARKS, MAX_MARKDOWN_PARAGRAPH_MARKS, ParseLimitExceeded } from "./limits"
import type { Block } from "./types"

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/

/**
 * Markdown through mdast-util-from-markdown (CommonMark): headings keep their depth; paragraphs,
 * list items, code blocks, block quotes and embedded HTML become text blocks. YAML front matter is
 * removed (its `title:` becomes the title) so it is not mistaken for a setext heading.
 */
export const parseMarkdown = (bytes: Uint8Array): HtmlContent => {
  let source = decodeText(bytes)
  if (source.length > MAX_MARKDOWN_CHARS) throw new ParseLimitExceeded(`it is longer than ${MAX_MARKDOWN_CHARS / 1024 / 1024} MiB of Markdown; upload it as plain text or split it`)
  let title: string | undefined
  const front = FRONT_MATTER.exec(source)
  if (front) {
    source = source.slice(front[0].length)
    const declared = /^title:[ \t]*(.+)$/m.exec(front[1]!)?.[1]?.trim().replace(/^(["'])(.*)\1$/, "$2")
    if (declared) title = declared
  }
  if (costly(source)) {
    const light = lightMarkdown(source)
    return title === undefined && light.title === undefined ? { blocks: light.blocks } : { title: (title ?? light.title)!, blocks: light.blocks }
  }
  const blocks: Block[] = []
  const walk = (node: Nodes, depth: number): void => {
    // A list is two levels of the tree (list, item), a block quote one.
    if (depth > 2 * MAX_MARKDOWN_DEPTH + 1) throw new ParseLimitExceeded(`it nests block quotes or lists more than ${MAX_MARKDOWN_DEPTH} deep`)
    switch (node.type) {
      case "heading": {
        const text = squash(inline(node))
        if (text !== "") {
          blocks.push({ kind: "heading", text, level: node.depth })
          if (node.depth === 1) title ??= text
        }
        return
      }
      case "paragraph": {
        const raw = source.slice(node.position?.start.offset ?? 0, node.position?.end.offset ?? 0)
        const table = pipeTable(raw)
        if (table !== undefined) {
          blocks.push({ kind: "text", text: table })
          return
        }
        const text = inline(node).split("\n").map(squash).filter((line) => line !== "").join("\n")
        if (text !== "") blocks.push({ kind: "text", text })
        return
      }
      case "code":
        if (node.value.trim() !== "") blocks.push({ kind: "text", text: node.value.replace(/\s+$/, "") })
        return
      case "html":
        blocks.push(...htmlToBlocks(node.value).blocks)
        return
      case "table":
        for (const row of node.children) {
          const text = row.children.map((cell) => squash(inline(cell))).join(" | ")
          if (text.replace(/[|\s]/g, "") !== "") blocks.push({ kind: "text", text })
        }
        return
      case "root":
      case "list":
      case "listItem":
      case "blockquote":
      case "footnoteDefinition":
        for (const child of node.children) walk(child, depth + 1)
        return
      default:
        return
    }
  }
  walk(fromMarkdown(source), 0)
  return title === undefined ? { blocks } : { title, blocks }
}

/**
 * A GitHub-style pipe table (CommonMark reads it as a paragraph): one line per row, cells joined
 * by " | ", the delimiter row dropped. Undefined when the paragraph is not such a table.
 */
const pipeTable = (raw: string): string | undefined => {
  const lines = raw.split(/\r?\n/).map((line) => line.trim())
  if (lines.length < 2 || !lines.every((line) => line.startsWith("|") || / \| /.test(line))) return undefined
  if (!/^\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?$/.test(lines[1]!)) return undefined
  return lines
    .filter((_, i) => i !== 1)
    .map((line) => line.replace(/^\|/, "").replace(/\|$/, "").split("|").map(squash).join(" | "))
    .join("\n")
}

/** Plain text of inline content: soft line breaks become spaces, hard breaks newlines. */
const inline = (node: Nodes): string => {
  switch (node.type) {
    case "text":
      return node.value.replace(/\n/g, " ")
    case "inlineCode":
      return node.value
    case "break":
      return "\n"
    case "image":
    case "imageReference":
      return node.alt ?? ""
    case "html":
      return ""
    default:
      return "children" in node ? node.children.map((child) => inline(child as Nodes)).join("") : ""
  }
}

const MARK = new Set(["*", "_", "[", "]", "`", "<"].map((c) => c.charCodeAt(0)))
const FENCE = /^ {0,3}(?:```|~~~)/
const CONTAINER = /^[ \t>]*/

/**
 * Whether CommonMark parsing would cost too much (limits.ts): too much inline punctuation in all or in one
 * paragraph (fenced code aside, which is not inline-parsed). Refuses outright (LIMIT_EXCEEDED) a line nested
 * deeper than MAX_MARKDOWN_DEPTH, whose cost micromark also multiplies. One linear pass.
 */
const costly = (source: string): boolean => {
  let total = 0
  let paragraph = 0
  let fenced = false
  let start = 0
  while (start <= source.length) {
    let end = source.indexOf("\n", start)
    if (end < 0) end = source.length
    const line = source.slice(start, end)
    start = end + 1
    if (FENCE.test(line)) {
      fenced = !fenced
      continue
    }
    if (fenced) continue
    const prefix = CONTAINER.exec(line)![0]
    let quotes = 0
    for (let i = 0; i < prefix.length; i++) if (prefix.charCodeAt(i) === 62) quotes++
    if (quotes > MAX_MARKDOWN_DEPTH || prefix.length > MAX_MARKDOWN_DEPTH * 4) {
      throw new ParseLimitExceeded(`it nests block quotes or lists more than ${MAX_MARKDOWN_DEPTH} deep`)
    }
    if (line.trim() === "") {
      paragraph = 0
      continue
    }
    for (let i = 0; i < line.length; i++) {
      if (MARK.has(line.charCodeAt(i))) {
        total++
        paragraph++
      }
    }
    if (total > MAX_MARKDOWN_INLINE_MARKS || paragraph > MAX_MARKDOWN_PARAGRAPH_MARKS) return true
  }
  return false
}

const ATX = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/

/** Markdown read without inline parsing: ATX headings and blank-line separated paragraphs, markup left as typed. */
const lightMarkdown = (source: string): HtmlContent => {
  const blocks: Block[] = []
  let title: string | undefined
  let lines: string[] = []
  const flush = () => {
    const text = lines.map(squash).filter((line) => line !== "").join("\n")
    if (text !== "") blocks.push({ kind: "text", text })
    lines = []
  }
  for (const line of source.split(/\r?\n/)) {
    const heading = line.length <= 1000 ? ATX.exec(line) : null
    if (heading) {
      flush()
      const text = squash(heading[2] ?? "")
      if (text !== "") {
        blocks.push({ kind: "heading", text, level: heading[1]!.length })
        if (heading[1]!.length === 1) title ??= text
      }
    } else if (line.trim() === "") flush()
    else lines.push(line)
  }
  flush()
  return title === undefined ? { blocks } : { title, blocks }
}
