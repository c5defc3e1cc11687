import type { Version3Models } from "jira.js"
import type { JiraIssue } from "./Client"

const MAX_DEPTH = 100
const MAX_NODES = 200_000

type AdfNode = Pick<Version3Models.Document, "type" | "text" | "attrs" | "content">

/**
 * Atlassian Document Format (Cloud v3's descriptions and comments) as Markdown-like text: headings as `#` lines so
 * Lore's chunker cuts by section, list items as `- `, code blocks fenced, mentions and emoji by their text, table
 * cells separated by ` | `. Nesting beyond MAX_DEPTH and nodes beyond MAX_NODES are left out (a hostile document
 * cannot exhaust the stack or the time).
 */
export const adfToText = (document: unknown): string => {
  const lines: Array<string> = []
  let line = ""
  let seen = 0
  const flush = () => {
    const text = line.replace(/[ \t]+/g, " ").trim()
    if (text) lines.push(text, "")
    line = ""
  }
  const walk = (node: AdfNode, depth: number, prefix: string) => {
    if (depth > MAX_DEPTH || ++seen > MAX_NODES || typeof node !== "object" || node === null) return
    const children = Array.isArray(node.content) ? node.content as ReadonlyArray<AdfNode> : []
    const attrs = (typeof node.attrs === "object" && node.attrs !== null ? node.attrs : {}) as Record<string, unknown>
    switch (node.type) {
      case "text":
        line += typeof node.text === "string" ? node.text : ""
        return
      case "mention":
      case "emoji":
        line += typeof attrs.text === "string" ? attrs.text : typeof attrs.shortName === "string" ? attrs.shortName : ""
        return
      case "inlineCard":
        line += typeof attrs.url === "string" ? attrs.url : ""
        return
      case "hardBreak":
        flush()
        return
      case "heading": {
        flush()
        const level = Math.min(6, Math.max(1, Number(attrs.level) || 1) + 1)
        line = `${"#".repeat(level)} `
        for (const child of children) walk(child, depth + 1, prefix)
        flush()
        return
      }
      case "listItem":
        flush()
        line = `${prefix}- `
        for (const child of children) {
          if (child.type === "paragraph") for (const inline of (child.content ?? []) as ReadonlyArray<AdfNode>) walk(inline, depth + 2, prefix)
          else walk(child, depth + 1, prefix + "  ")
        }
        flush()
        return
      case "codeBlock":
        flush()
        lines.push("```")
        for (const child of children) walk(child, depth + 1, prefix)
        if (line) lines.push(line)
        line = ""
        lines.push("```", "")
        return
      case "tableCell":
      case "tableHeader":
        line += " | "
        for (const child of children) {
          if (child.type === "paragraph") for (const inline of (child.content ?? []) as ReadonlyArray<AdfNode>) walk(inline, depth + 2, prefix)
          else walk(child, depth + 1, prefix)
        }
        return
      case "tableRow":
        flush()
        for (const child of children) walk(child, depth + 1, prefix)
        flush()
        return
      case "paragraph":
      case "blockquote":
      case "panel":
      case "rule":
        flush()
        for (const child of children) walk(child, depth + 1, prefix)
        flush()
        return
      default:
        for (const child of children) walk(child, depth + 1, prefix)
    }
  }
  if (typeof document === "object" && document !== null) walk(document as AdfNode, 0, "")
  flush()
  return lines.join("\n").trim()
}

/**
 * Jira wiki markup (Data Center v2's descriptions and comments) as Markdown-like text: `h1.`–`h6.` headings as `#`
 * lines, `*`/`#` list bullets as `- `, `{code}`/`{noformat}` fences kept, `[text|url]` links as their text; the rest
 * is kept as written (it reads well enough as text).
 */
export const wikiToText = (markup: string): string =>
  markup
    .split(/\r?\n/)
    .map((raw) => {
      const heading = /^\s*h([1-6])\.\s*(.*)$/.exec(raw)
      if (heading) return `${"#".repeat(Math.min(6, Number(heading[1]) + 1))} ${heading[2]}`
      const bullet = /^\s*([*#-]+)\s+(.*)$/.exec(raw)
      const text = bullet ? `${"  ".repeat(bullet[1]!.length - 1)}- ${bullet[2]}` : raw
      return text
        .replace(/\{(code|noformat)(?::[^}]*)?\}/g, "```")
        .replace(/\[([^|\]]{1,500})\|[^\]]{1,2000}\]/g, "$1")
    })
    .join("\n")
    .trim()

/** A description or comment body, whichever the deployment gave (ADF object on Cloud, markup string on Data Center). */
export const bodyToText = (body: unknown): string => (typeof body === "string" ? wikiToText(body) : adfToText(body))

/** One issue as one Markdown document: key and summary, its fields, the description, then each comment with its author and time. */
export const issueToText = (issue: JiraIssue, comments: ReadonlyArray<{ readonly author?: { readonly displayName?: string | undefined } | undefined; readonly created?: string | undefined; readonly body?: unknown }>): string => {
  const f = issue.fields
  const lines = [`# ${issue.key}: ${f.summary ?? ""}`, ""]
  if (f.status?.name) lines.push(`Status: ${f.status.name}`)
  lines.push(`Assignee: ${f.assignee?.displayName ?? "Unassigned"}`)
  if (f.reporter?.displayName) lines.push(`Reporter: ${f.reporter.displayName}`)
  if (f.labels && f.labels.length > 0) lines.push(`Labels: ${f.labels.join(", ")}`)
  if (f.updated) lines.push(`Updated: ${f.updated}`)
  lines.push("")
  const description = bodyToText(f.description ?? "")
  if (description) lines.push("## Description", "", description, "")
  if (comments.length > 0) {
    lines.push("## Comments", "")
    for (const comment of comments) {
      lines.push(`### ${comment.author?.displayName ?? "Someone"}${comment.created ? ` (${comment.created})` : ""}`, "", bodyToText(comment.body ?? ""), "")
    }
  }
  return lines.join("\n").trim() + "\n"
}
