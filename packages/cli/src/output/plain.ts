import { COLUMN_GAP, layoutTable } from "./table"
import { type Block, cellText, type Segment, type View } from "./view"

/**
 * Views as plain aligned text: no colors, no escape codes, one record per line, nothing cut — for pipes,
 * files and grep. Hints are returned apart: they go to stderr, so stdout holds only the result.
 */
export const renderPlain = (view: View): { readonly out: string; readonly hints: string } => {
  const out: Array<string> = []
  const hints: Array<string> = []
  view.forEach((block, index) => {
    if (block.kind === "hint") hints.push(block.text)
    else out.push((block.kind === "heading" && index > 0 ? "\n" : "") + renderBlock(block))
  })
  return { out: out.length > 0 ? out.join("\n") + "\n" : "", hints: hints.length > 0 ? hints.join("\n") + "\n" : "" }
}

/** Writes a view piped: the result on stdout, hints on stderr. */
export const writePlain = (view: View) => {
  const { out, hints } = renderPlain(view)
  if (out) process.stdout.write(out)
  if (hints) process.stderr.write(hints)
}

/** Piped there is no bold or colour: a cited passage is set off with » «; search terms are left as they are. */
export const plainSegments = (segments: ReadonlyArray<Segment>) =>
  segments.map((segment) => (segment.emphasis === "cited" ? `»${segment.text}«` : segment.text)).join("")

const renderBlock = (block: Exclude<Block, { kind: "hint" }>): string => {
  switch (block.kind) {
    case "heading":
    case "message":
      return block.text
    case "fields": {
      const width = Math.max(0, ...block.fields.map(([label]) => label.length + 1))
      return block.fields.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${cellText(value)}`).join("\n")
    }
    case "table": {
      if (block.rows.length === 0) return block.empty
      const table = layoutTable(block.columns, block.rows)
      return [table.header.join(COLUMN_GAP).trimEnd(), ...table.rows.map((row) => row.map((cell) => cell.text).join(COLUMN_GAP).trimEnd())].join("\n")
    }
    case "secret":
      return `${block.label}: ${block.value}\n${block.note}`
    case "line":
      return block.spans.map((span) => span.text).join("")
    case "passage":
      return " ".repeat(block.indent ?? 0) + plainSegments(block.segments)
    case "blank":
      return ""
  }
}
