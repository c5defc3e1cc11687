/**
 * What a command shows a person, independent of how: the plain renderer prints it as aligned text, the
 * Ink renderer with colors. Commands build views from their data and never write to stdout themselves.
 */
export type Tone = "success" | "warning" | "error" | "muted" | "accent"

export interface Styled {
  readonly text: string
  readonly tone?: Tone
}
export type Cell = string | Styled

export interface Column {
  readonly header: string
  readonly align?: "left" | "right"
}

export type Block =
  | { readonly kind: "heading"; readonly text: string }
  | { readonly kind: "message"; readonly text: string; readonly tone?: Tone }
  | { readonly kind: "fields"; readonly fields: ReadonlyArray<readonly [label: string, value: Cell]> }
  | { readonly kind: "table"; readonly columns: ReadonlyArray<Column>; readonly rows: ReadonlyArray<ReadonlyArray<Cell>>; readonly empty: string }
  /** A secret shown once (a new token): set apart, never truncated. */
  | { readonly kind: "secret"; readonly label: string; readonly value: string; readonly note: string }

export type View = ReadonlyArray<Block>

export const cellText = (cell: Cell) => (typeof cell === "string" ? cell : cell.text)

export const styled = (text: string, tone?: Tone): Styled => (tone ? { text, tone } : { text })

/** `2025-03-01` (UTC), for table columns; `fallback` for null/absent. */
export const formatDate = (value: string | Date | null | undefined, fallback = "-") => {
  const time = formatTime(value, fallback)
  return /^\d{4}-\d{2}-\d{2} /.test(time) ? time.slice(0, 10) : time
}

/** `2025-03-01 14:05 UTC`; `fallback` for null/absent. */
export const formatTime = (value: string | Date | null | undefined, fallback = "-") => {
  if (value === null || value === undefined || value === "") return fallback
  const date = value instanceof Date ? value : new Date(value)
  if (Number.isNaN(date.getTime())) return String(value)
  return `${date.toISOString().slice(0, 16).replace("T", " ")} UTC`
}
