import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { Cause, Effect, Exit, Option, ParseResult, Runtime, Schema } from "effect"
import type { FieldError } from "../domain/Errors"
import { quoteInput } from "../domain/Echo"
import { MCP_MAX_FIELD_ERRORS } from "./Limits"

/**
 * How Lore's answers and refusals become MCP results. A refused tool call is a tool result (`isError: true`)
 * whose `structuredContent` is `{code, detail, errors?}` and whose text starts with the code, so an agent reads
 * the same stable codes as a REST client (docs/errors.md). Prompts and resources have no error result in the
 * protocol: they fail as JSON-RPC errors carrying the same `{code, detail}` in `data`.
 */

export interface Refusal {
  readonly code: string
  readonly detail: string
  readonly errors?: ReadonlyArray<FieldError> | undefined
}

export interface ToolResult {
  readonly [key: string]: unknown
  readonly content: Array<{ type: "text"; text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

/** A tagged Lore error (ProblemError) carries a stable code and a detail; anything else is not a refusal. */
const refusalOf = (error: unknown): Refusal | undefined => {
  if (typeof error !== "object" || error === null) return undefined
  const { code, detail, errors } = error as { code?: unknown; detail?: unknown; errors?: unknown }
  if (typeof code !== "string" || typeof detail !== "string") return undefined
  return { code, detail, ...(Array.isArray(errors) && errors.length > 0 ? { errors: errors as ReadonlyArray<FieldError> } : {}) }
}

export const internalRefusal: Refusal = { code: "INTERNAL_ERROR", detail: "An unexpected error occurred; quote the x-request-id header when reporting it" }

export const success = (value: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value
})

export const refused = (refusal: Refusal): ToolResult => ({
  content: [{ type: "text", text: `${refusal.code}: ${refusal.detail}${refusal.errors ? ` (${refusal.errors.map((e) => `${e.path} ${e.message}`).join("; ")})` : ""}` }],
  structuredContent: { ...refusal },
  isError: true
})

/** Runs an effect of the request's fiber (its request id, for the audit trail) to an Exit. */
export const runExit = <A, E>(runtime: Runtime.Runtime<never>, effect: Effect.Effect<A, E>) => Runtime.runPromiseExit(runtime)(effect)

/** The refusal an Exit's failure stands for: a Lore error's code, or INTERNAL_ERROR for a defect (logged). */
export const refusalOfCause = <E>(runtime: Runtime.Runtime<never>, cause: Cause.Cause<E>): Refusal => {
  const failure = Cause.failureOption(cause)
  const known = Option.isSome(failure) ? refusalOf(failure.value) : undefined
  if (known) return known
  Runtime.runFork(runtime)(Effect.logError("MCP request failed", cause))
  return internalRefusal
}

/** A tool's effect as a tool result: success as structured content, a refusal as an error result. */
export const toolResult = async <A extends Record<string, unknown>, E>(runtime: Runtime.Runtime<never>, effect: Effect.Effect<A, E>): Promise<ToolResult> => {
  const exit = await runExit(runtime, effect)
  return Exit.isSuccess(exit) ? success(exit.value) : refused(refusalOfCause(runtime, exit.cause))
}

/** A prompt's or resource's effect: its value, or a JSON-RPC error with the refusal in `data`. */
export const protocolResult = async <A, E>(runtime: Runtime.Runtime<never>, effect: Effect.Effect<A, E>, notFound: number): Promise<A> => {
  const exit = await runExit(runtime, effect)
  if (Exit.isSuccess(exit)) return exit.value
  const refusal = refusalOfCause(runtime, exit.cause)
  const code = refusal === internalRefusal ? ErrorCode.InternalError : refusal.code.endsWith("_NOT_FOUND") ? notFound : ErrorCode.InvalidParams
  throw new McpError(code, `${refusal.code}: ${refusal.detail}`, refusal)
}

/**
 * A schema issue's message without the value it refused: Effect's formatter ends a message with `, actual <value>`,
 * which repeated a 619 KB argument back (twice: in the text and in structuredContent).
 */
const withoutActual = (message: string) => quoteInput(message.replace(/,\s*actual\s[\s\S]*$/, ""))

/** A field's path; its segments may be the caller's own keys, so each is quoted short. */
const pathOf = (path: ReadonlyArray<PropertyKey>) => quoteInput(path.map((segment) => quoteInput(String(segment), 40)).join("."), 120)

/** Tool arguments decoded by their Effect schema; a mismatch is VALIDATION_FAILED naming each field (the first few), never its value. */
export const decodeArguments = <A, I>(schema: Schema.Schema<A, I>, input: unknown) =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input ?? {}).pipe(
    Effect.mapError((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      const more = issues.length - MCP_MAX_FIELD_ERRORS
      return {
        code: "VALIDATION_FAILED",
        detail: `The tool's arguments do not fit its input schema${more > 0 ? ` (${issues.length} problems; the first ${MCP_MAX_FIELD_ERRORS} are named)` : ""}`,
        errors: issues.slice(0, MCP_MAX_FIELD_ERRORS).map((issue) => ({ path: pathOf(issue.path), message: withoutActual(issue.message) }))
      } satisfies Refusal
    })
  )
