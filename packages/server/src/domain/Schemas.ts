import { HttpApiSchema } from "@effect/platform"
import { Option, Schema, SchemaAST } from "effect"

/** Whether any text in a decoded value holds a NUL character, which PostgreSQL cannot store in text. */
const holdsNul = (value: unknown): boolean =>
  typeof value === "string" ? value.includes("\u0000")
    : Array.isArray(value) ? value.some(holdsNul)
    : value !== null && typeof value === "object" ? Object.values(value).some(holdsNul)
    : false

/** A JSON request body: unknown fields are an error, not silently dropped; every invalid field is reported. */
export const Body = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).pipe(
    Schema.filter((value) => !holdsNul(value) || "must not contain the NUL character (\\u0000)")
  ).annotations({ parseOptions: { onExcessProperty: "error", errors: "all" } })

/** Query parameters: every invalid parameter is reported at once (unknown ones are ignored, as on the web). */
export const Query = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { errors: "all" } })

/** A point in time: ISO 8601 UTC on the wire. Named so generated clients do not shadow the global Date. */
export const Timestamp = Schema.Date.annotations({
  identifier: "Timestamp",
  jsonSchema: { type: "string", format: "date-time", description: "ISO 8601 date-time in UTC" }
})

/** An integer query parameter (sent as text, documented as an integer). */
export const IntegerParam = (minimum: number, maximum: number) =>
  Schema.NumberFromString.pipe(Schema.int(), Schema.between(minimum, maximum)).annotations({
    jsonSchema: { type: "integer", minimum, maximum }
  })

/**
 * A 201 answer: `.addSuccess(created(Source))`. `addSuccess(Source, { status: 201 })` re-annotates the schema,
 * and Effect drops the identifier of a re-annotated schema, so the document would inline the body and the
 * generated SDK would have no named type for it; this keeps the identifier beside the status.
 */
export const created = <S extends Schema.Schema.Any>(schema: S): S => {
  const identifier = Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(schema.ast))
  return schema.annotations(HttpApiSchema.annotations({ status: 201, ...(identifier ? { identifier } : {}) })) as S
}

/** A uuid's text form, for ids that arrive outside a Schema (cursors, job ids) and must be checked before SQL casts them. */
export const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
