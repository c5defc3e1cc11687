import { type Block, cellText, type Column, type View } from "./view"

/** Views as plain aligned text: no colors, no escape codes, one record per line — for pipes, files and grep. */
export const renderPlain = (view: View): string =>
  view.map((block, index) => (block.kind === "heading" && index > 0 ? "\n" : "") + renderBlock(block)).join("\n") + "\n"

const renderBlock = (block: Block): string => {
  switch (block.kind) {
    case "heading":
      return block.text
    case "message":
      return block.text
    case "fields": {
      const width = Math.max(0, ...block.fields.map(([label]) => label.length + 1))
      return block.fields.map(([label, value]) => `${`${label}:`.padEnd(width)}  ${cellText(value)}`).join("\n")
    }
    case "table": {
      if (block.rows.length === 0) return block.empty
      const header = block.columns.map((column) => column.header.toUpperCase())
      const rows = block.rows.map((row) => row.map(cellText))
      return alignColumns(block.columns, [header, ...rows]).join("\n")
    }
    case "secret":
      return `${block.label}: ${block.value}\n${block.note}`
  }
}

export const alignColumns = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<string>>): string[] => {
  const widths = columns.map((_, index) => Math.max(...rows.map((row) => (row[index] ?? "").length)))
  return rows.map((row) =>
    columns
      .map((column, index) => {
        const text = row[index] ?? ""
        const last = index === columns.length - 1
        if (column.align === "right") return text.padStart(widths[index]!)
        return last ? text : text.padEnd(widths[index]!)
      })
      .join("  ")
      .trimEnd()
  )
}
