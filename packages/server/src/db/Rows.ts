import { Data, Effect, ParseResult, Schema } from "effect"

/**
 * A row the database returned that does not match its statement's schema: a defect (the schema and the
 * SQL disagree), reported with the statement's name and the failing paths, never the values (rows hold
 * secrets' hashes, personal data, document text).
 */
export class RowDecodeError extends Data.TaggedError("RowDecodeError")<{
  readonly statement: string
  readonly paths: ReadonlyArray<string>
}> {
  override get message() {
    return `Rows of ${this.statement} do not match its schema at ${this.paths.join(", ")}`
  }
}

const failingPaths = (error: ParseResult.ParseError) =>
  [...new Set(ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => `${issue.path.map(String).join(".") || "(row)"} (${issue._tag})`))]

/** Decodes a statement's rows with a schema built once; a mismatch is a logged defect naming statement and paths. */
const decoder = <A, I>(statement: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknown(Schema.Array(schema), { onExcessProperty: "ignore" })
  return (rows: unknown): Effect.Effect<ReadonlyArray<A>> =>
    Effect.catchAll(decode(rows), (error) => {
      const mismatch = new RowDecodeError({ statement, paths: failingPaths(error) })
      return Effect.zipRight(
        Effect.logError("row does not decode").pipe(Effect.annotateLogs({ statement, paths: mismatch.paths })),
        Effect.die(mismatch)
      )
    })
}

/**
 * A repository statement returning rows: `const spaces = rows("spaces", SpaceRow, (org: string) => sql\`...\`)`.
 * Database errors become defects, as everywhere in Lore's repositories.
 */
export const rows = <A, I, Args extends ReadonlyArray<any>, E>(
  statement: string,
  schema: Schema.Schema<A, I>,
  run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>
) => {
  const decode = decoder(statement, schema)
  return (...args: Args): Effect.Effect<ReadonlyArray<A>> => Effect.flatMap(Effect.orDie(run(...args)), decode)
}

/** A statement returning at most one row of interest: the first, or undefined. */
export const row = <A, I, Args extends ReadonlyArray<any>, E>(
  statement: string,
  schema: Schema.Schema<A, I>,
  run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>
) => {
  const all = rows(statement, schema, run)
  return (...args: Args): Effect.Effect<A | undefined> => Effect.map(all(...args), (found) => found[0])
}

/** A statement that always returns a row (INSERT ... RETURNING): none is a defect naming the statement. */
export const one = <A, I, Args extends ReadonlyArray<any>, E>(
  statement: string,
  schema: Schema.Schema<A, I>,
  run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>
) => {
  const all = rows(statement, schema, run)
  return (...args: Args): Effect.Effect<A> =>
    Effect.flatMap(all(...args), (found) =>
      found.length > 0 ? Effect.succeed(found[0]!) : Effect.die(new RowDecodeError({ statement, paths: ["(no row returned)"] })))
}

/** A statement whose rows are not read (or only counted): `affected` answers whether any row came back. */
export const exec = <Args extends ReadonlyArray<any>, E>(run: (...args: Args) => Effect.Effect<unknown, E>) =>
  (...args: Args): Effect.Effect<void> => Effect.asVoid(Effect.orDie(run(...args)))

export const affected = <Args extends ReadonlyArray<any>, E>(run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>) =>
  (...args: Args): Effect.Effect<boolean> => Effect.map(Effect.orDie(run(...args)), (found) => found.length > 0)

/** A statement whose returned rows are only counted (`DELETE ... RETURNING id`): answers how many. */
export const counted = <Args extends ReadonlyArray<any>, E>(run: (...args: Args) => Effect.Effect<ReadonlyArray<unknown>, E>) =>
  (...args: Args): Effect.Effect<number> => Effect.map(Effect.orDie(run(...args)), (found) => found.length)

/** Column schemas for what pg returns: timestamps as Date objects, bigint counts as text or number. */
export const Timestamp = Schema.DateFromSelf
export const Count = Schema.Union(Schema.Number, Schema.NumberFromString)
