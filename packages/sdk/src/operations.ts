import type { operations } from "./generated/openapi"

/**
 * Types derived from the generated `operations`, keyed by the server's endpoint names. The document's
 * operation ids are `<group>.<endpoint>` (`sources.listSources`); callers use the endpoint name alone,
 * which is unique across groups (test/operations.test.ts checks it).
 */
type EndpointName<Id> = Id extends `${string}.${infer Name}` ? Name : Id

/** Every endpoint name: `"listSources" | "getSource" | ...`. */
export type OperationName = EndpointName<keyof operations>

/** The generated operation of an endpoint name. */
export type Operation<Name extends OperationName> = {
  [Id in keyof operations]: EndpointName<Id> extends Name ? operations[Id] : never
}[keyof operations]

/** The problem+json bodies an operation declares, over all its error statuses. */
type ProblemBodies<Op> = Op extends { readonly responses: infer Responses }
  ? { [Status in keyof Responses]: Responses[Status] extends { content: { "application/problem+json": infer Body } } ? Body : never }[keyof Responses]
  : never

type CodeOf<Body> = Body extends { readonly code: infer Code extends string } ? Code : never

/**
 * The error codes an operation's problem+json answers can carry, as the server declares them per
 * operation: `ErrorCode<"listSources">` is `"VALIDATION_FAILED" | "INVALID_CURSOR" | "UNAUTHENTICATED" | ...`.
 * The SDK's own codes (no answer, bad argument) are `ClientErrorCode`.
 */
export type ErrorCode<Name extends OperationName> = CodeOf<ProblemBodies<Operation<Name>>>

/** Every code any operation declares. */
export type ServerErrorCode = ErrorCode<OperationName>

/** The query parameters of an operation, as the document types them. */
export type QueryOf<Name extends OperationName> = NonNullable<Operation<Name>["parameters"]["query"]>
