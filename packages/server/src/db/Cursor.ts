import { Effect } from "effect"
import { InvalidCursor } from "../domain/Errors"
import { UUID_PATTERN } from "../domain/Schemas"

/**
 * The one keyset cursor of every paged list: the last row's timestamp as ISO 8601 UTC to the microsecond
 * (read from SQL with `MICROSECOND_TEXT`, since a JS Date keeps milliseconds only and rows stamped within
 * the same millisecond would be skipped) and its uuid, base64url-encoded. Lists order by (timestamp, id).
 */
export interface CursorPosition {
  /** Microsecond ISO text, as the statement returned it; compare in SQL as `${at}::timestamptz`. */
  readonly at: string
  readonly id: string
}

/** to_char pattern giving `2026-11-25T04:26:34.123456Z` for a timestamptz read `AT TIME ZONE 'UTC'`. */
export const MICROSECOND_TEXT = `YYYY-MM-DD"T"HH24:MI:SS.US"Z"`

const AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,6})?Z$/

/**
 * The one cursor codec of Lore's paged lists (the HTTP lists here, the connectors' document listing, MCP's
 * resources/list): a position written as text, base64url-encoded. A cursor is refused unless it is exactly
 * the encoding Lore writes (no padding, no other alphabet) of a text the position parses.
 */
export interface CursorCodec<A> {
  readonly encode: (position: A) => string
  /** The position, or undefined when the cursor is not one this codec wrote. */
  readonly decode: (cursor: string) => A | undefined
}

export const cursorCodec = <A>(write: (position: A) => string, read: (text: string) => A | undefined): CursorCodec<A> => ({
  encode: (position) => Buffer.from(write(position), "utf8").toString("base64url"),
  decode: (cursor) => {
    const text = Buffer.from(cursor, "base64url").toString("utf8")
    return Buffer.from(text, "utf8").toString("base64url") === cursor ? read(text) : undefined
  }
})

/** The keyset position of the lists ordered by (timestamp, id). */
export const keysetCursor = cursorCodec<CursorPosition>(
  (position) => `${position.at}|${position.id}`,
  (text) => {
    const [at, id, ...rest] = text.split("|")
    const valid = rest.length === 0 && at !== undefined && AT.test(at) && !Number.isNaN(new Date(at).getTime()) &&
      id !== undefined && UUID_PATTERN.test(id)
    return valid ? { at, id } : undefined
  }
)

export const encodeCursor = keysetCursor.encode

/** The position after which the next page starts; undefined for the first page; 400 INVALID_CURSOR if forged. */
export const decodeCursorWith = <A>(codec: CursorCodec<A>, cursor: string | undefined): Effect.Effect<A | undefined, InvalidCursor> => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const position = codec.decode(cursor)
  return position !== undefined ? Effect.succeed(position) : Effect.fail(new InvalidCursor({ detail: "The cursor is not one this list issued; start again without it" }))
}

export const decodeCursor = (cursor: string | undefined) => decodeCursorWith(keysetCursor, cursor)

/** One page of `pageSize` from rows fetched with LIMIT pageSize + 1, and the cursor of the next page. */
export const page = <Row>(rows: ReadonlyArray<Row>, pageSize: number, position: (row: Row) => CursorPosition) => {
  const items = rows.slice(0, pageSize)
  return { items, nextCursor: rows.length > pageSize ? encodeCursor(position(items[items.length - 1]!)) : null }
}
