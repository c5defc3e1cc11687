import { Schema } from "effect"

/** A JSON request body: unknown fields are an error, not silently dropped. */
export const Body = <Fields extends Schema.Struct.Fields>(fields: Fields) =>
  Schema.Struct(fields).annotations({ parseOptions: { onExcessProperty: "error" } })
