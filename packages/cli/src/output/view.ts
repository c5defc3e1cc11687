/**
 * What a command shows a person, independent of how: the plain renderer (plain.ts) prints it as aligned
 * text for pipes and files, the Ink renderer (ink.tsx) with colors on a terminal. Commands build views
 * from their data and never write to stdout themselves.
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
  /**
   * How a table fits a terminal narrower than it: `text` (free text: titles, names, details) may be cut
   * with `…`, widest first; `fixed` (ids, statuses, dates, keys: the default) is never cut; `optional`
   * (counts, dates, a second handle such as a user's id beside their email) is left out, last first,
   * when cutting the text is not enough.
   */
  readonly fit?: "text" | "fixed" | "optional"
}

/** A run of text; `term` is a search term (emphasized on a terminal only), `cited` the cited passage. */
export interface Segment {
  readonly text: string
  readonly emphasis?: "term" | "cited"
}

/** One run of a line with its own style. */
export interface Span {
  readonly text: string
  readonly tone?: Tone
  readonly bold?: boolean
}

export type Block =
  | { readonly kind: "heading"; readonly text: string }
  | { readonly kind: "message"; readonly text: string; readonly tone?: Tone }
  | { readonly kind: "fields"; readonly fields: ReadonlyArray<readonly [label: string, value: Cell]> }
  | { readonly kind: "table"; readonly columns: ReadonlyArray<Column>; readonly rows: ReadonlyArray<ReadonlyArray<Cell>>; readonly empty: string }
  /** A secret shown once (a new token): set apart, never truncated. */
  | { readonly kind: "secret"; readonly label: string; readonly value: string; readonly note: string }
  /** One line of differently styled runs. */
  | { readonly kind: "line"; readonly spans: ReadonlyArray<Span> }
  /** A passage with emphasized runs, indented by `indent` spaces. */
  | { readonly kind: "passage"; readonly segments: ReadonlyArray<Segment>; readonly indent?: number }
  | { readonly kind: "blank" }
  /**
   * A footer or hint for people (what to run next, how much more there is): on a terminal below the
   * result, dimmed; piped, on stderr, so stdout holds only the result.
   */
  | { readonly kind: "hint"; readonly text: string }

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

/** `12.3 kB` (decimal units, like `ls -h --si`). */
export const formatBytes = (bytes: number): string => {
  if (bytes < 1000) return `${bytes} B`
  const units = ["kB", "MB", "GB", "TB"]
  let value = bytes
  let unit = -1
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000
    unit++
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`
}

/** `1 file`, `3 files`. */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`
