import type { Nodes } from "mdast"
import { fromMarkdown } from "mdast-util-from-markdown"
import { htmlToBlocks, type HtmlContent } from "./html"
import { decodeText, squash } from "./text"
import type { Block } from "./types"

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/

/**
 * Markdown through mdast-util-from-markdown (CommonMark): headings keep their depth; paragraphs,
 * list items, code blocks, block quotes and embedded HTML become text blocks. YAML front matter is
 * removed (its `title:` becomes the title) so it is not mistaken for a setext heading.
 */
export const parseMarkdown = (bytes: Uint8Array): HtmlContent => {
  let source = decodeText(bytes)
  let title: string | undefined
  const front = FRONT_MATTER.exec(source)
  if (front) {
    source = source.slice(front[0].length)
    const declared = /^title:[ \t]*(.+)$/m.exec(front[1]!)?.[1]?.trim().replace(/^(["'])(.*)\1$/, "$2")
    if (declared) title = declared
  }
  const blocks: Block[] = []
  const walk = (node: Nodes): void => {
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
        for (const child of node.children) walk(child)
        return
      default:
        return
    }
  }
  walk(fromMarkdown(source))
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
