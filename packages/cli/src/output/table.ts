import { type Cell, cellText, type Column, type Styled } from "./view"

/**
 * Table layout shared by both renderers, as gh lays out its tables: columns separated by two spaces,
 * headers upper-case. When the table is wider than the terminal, the free-text columns (`fit: "text"`)
 * are cut with `…`, always the widest first, down to a floor; if that is not enough, the optional
 * columns are left out, the rightmost first. Ids and the other fixed columns are never cut (a table that
 * cannot fit with them whole is left wider than the terminal and wraps). Piped, the width is unlimited:
 * nothing is cut or left out, so `grep` and `cut` see every value.
 */

export const COLUMN_GAP = "  "
/** Free text is cut to this before any optional column is left out... */
const COMFORTABLE_TEXT_WIDTH = 24
/** ...and never below this. */
const MIN_TEXT_WIDTH = 8

/** Width in terminal cells, counting code points (not UTF-16 units). */
export const displayWidth = (text: string) => [...text].length

/** `text` cut to `width` cells, ending in `…` when cut. */
export const truncate = (text: string, width: number): string => {
  const chars = [...text]
  if (chars.length <= width) return text
  return width <= 1 ? "…".slice(0, width) : `${chars.slice(0, width - 1).join("")}…`
}

const pad = (text: string, width: number, align: Column["align"]) => {
  const gap = " ".repeat(Math.max(0, width - displayWidth(text)))
  return align === "right" ? gap + text : text + gap
}

/**
 * Each column's width, or undefined for a column left out: natural widths; then the free-text columns
 * narrowed to a comfortable width; then optional columns dropped; then the free-text columns narrowed
 * to their floor (headers are cut like values), until the table fits `maxWidth`.
 */
export const columnWidths = (columns: ReadonlyArray<Column>, rows: ReadonlyArray<ReadonlyArray<string>>, maxWidth: number): Array<number | undefined> => {
  const widths: Array<number | undefined> = columns.map((column, index) => Math.max(displayWidth(column.header), ...rows.map((row) => displayWidth(row[index] ?? ""))))
  const total = () => {
    const shown = widths.filter((width) => width !== undefined)
    return shown.reduce((sum, width) => sum + width, 0) + COLUMN_GAP.length * (shown.length - 1)
  }
  /** Narrows the widest free-text column above `floor` by one cell; false when none is left. */
  const narrow = (floor: number) => {
    let widest = -1
    columns.forEach((column, index) => {
      const width = widths[index]
      if (column.fit === "text" && width !== undefined && width > floor && (widest === -1 || width > widths[widest]!)) widest = index
    })
    if (widest === -1) return false
    widths[widest]!--
    return true
  }
  const drop = () => {
    const optional = columns.findLastIndex((column, index) => column.fit === "optional" && widths[index] !== undefined)
    if (optional === -1) return false
    widths[optional] = undefined
    return true
  }
  while (total() > maxWidth && (narrow(COMFORTABLE_TEXT_WIDTH) || drop() || narrow(MIN_TEXT_WIDTH)));
  return widths
}

/**
 * The header line and the rows, each a list of cells already cut and padded to their column's width
 * (the last column is not padded), and the headers of the columns left out. Renderers join the cells
 * with COLUMN_GAP and style them.
 */
export const layoutTable = (
  columns: ReadonlyArray<Column>,
  rows: ReadonlyArray<ReadonlyArray<Cell>>,
  maxWidth = Number.POSITIVE_INFINITY
): { readonly header: Array<string>; readonly rows: Array<Array<Styled>>; readonly omitted: Array<string> } => {
  const texts = rows.map((row) => columns.map((_, index) => cellText(row[index] ?? "")))
  const widths = columnWidths(columns, texts, maxWidth)
  const shown = columns.map((_, index) => index).filter((index) => widths[index] !== undefined)
  const fit = (text: string, index: number) => {
    const cut = truncate(text, widths[index]!)
    const last = index === shown[shown.length - 1]
    return last && columns[index]!.align !== "right" ? cut : pad(cut, widths[index]!, columns[index]!.align)
  }
  return {
    header: shown.map((index) => fit(columns[index]!.header.toUpperCase(), index)),
    rows: rows.map((row, rowIndex) =>
      shown.map((index) => {
        const cell = row[index] ?? ""
        const text = fit(texts[rowIndex]![index]!, index)
        return typeof cell === "string" || !cell.tone ? { text } : { text, tone: cell.tone }
      })
    ),
    omitted: columns.filter((_, index) => widths[index] === undefined).map((column) => column.header)
  }
}
