import type { FieldError, Problem } from "./generated/openapi"
import type { ServerErrorCode } from "./operations"

/**
 * Codes the SDK gives errors that are not a server's problem+json answer: NETWORK_ERROR (no answer,
 * status 0), HTTP_<status> (an answer that was not problem+json, such as a proxy's HTML 502),
 * WAIT_TIMEOUT (waitUntilSettled gave up), INVALID_BASE_URL and INVALID_ARGUMENT (refused before sending),
 * INVALID_RESPONSE (a chat stream event that is not JSON).
 */
export type ClientErrorCode = "NETWORK_ERROR" | "WAIT_TIMEOUT" | "INVALID_BASE_URL" | "INVALID_ARGUMENT" | "INVALID_RESPONSE" | "DIGEST_MISMATCH" | `HTTP_${number}`

/** Every code a LoreApiError can carry. */
export type LoreErrorCode = ServerErrorCode | ClientErrorCode

/** A problem body whose `code` is known to be one of `Code`. */
export type ProblemWithCode<Code extends string> = Problem & { readonly code: Code }

const isProblem = (value: unknown): value is Problem =>
  typeof value === "object" && value !== null && typeof (value as Problem).code === "string" &&
  typeof (value as Problem).status === "number"

/**
 * The one error the SDK throws. Server errors carry the problem+json body as `problem`; a body that is
 * not problem+json (a proxy's HTML 502, say) still gives a LoreApiError, with code `HTTP_<status>`;
 * a request that never got an answer has status 0 and code NETWORK_ERROR, with the original `cause`;
 * an argument the SDK refuses before sending has status 0 and a ClientErrorCode.
 * `Code` is what `isLoreError(error, ...codes)` narrowed it to.
 */
export class LoreApiError<Code extends string = string> extends Error {
  override readonly name = "LoreApiError"
  readonly status: number
  readonly code: Code
  readonly detail: string
  readonly requestId: string | undefined
  readonly errors: ReadonlyArray<FieldError> | undefined
  /** The parsed error body when it was problem+json; otherwise a problem synthesized from the status. */
  readonly problem: ProblemWithCode<Code>

  constructor(problem: ProblemWithCode<Code>, options?: { cause?: unknown }) {
    super(`${problem.status ? `${problem.status} ` : ""}${problem.code}: ${problem.detail}`, options)
    this.status = problem.status
    this.code = problem.code
    this.detail = problem.detail
    this.requestId = problem.requestId || undefined
    this.errors = problem.errors
    this.problem = problem
  }

  /** Works across bundle copies (ESM and CJS loaded together), where `instanceof` may not. */
  static is(value: unknown): value is LoreApiError {
    return value instanceof LoreApiError || (value instanceof Error && value.name === "LoreApiError" && "code" in value)
  }

  /** From a non-2xx response whose body was already read (`body` is parsed JSON or text). */
  static fromBody(response: Response, body: unknown): LoreApiError {
    const headerId = response.headers.get("x-request-id") ?? ""
    if (isProblem(body)) return new LoreApiError({ ...body, requestId: body.requestId || headerId })
    const text = typeof body === "string" ? body.trim() : ""
    return new LoreApiError({
      type: "about:blank",
      title: response.statusText || `HTTP ${response.status}`,
      status: response.status,
      code: `HTTP_${response.status}`,
      detail: text && !text.startsWith("<") ? text.slice(0, 500) : `The server answered ${response.status} ${response.statusText}`.trim(),
      requestId: headerId
    })
  }

  /** Reads the body of a non-2xx response (for callers using `lore.raw` or plain fetch). */
  static async fromResponse(response: Response): Promise<LoreApiError> {
    const text = await response.text().catch(() => "")
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: keep the text
    }
    return LoreApiError.fromBody(response, body)
  }

  static network(cause: unknown, request: Request): LoreApiError<"NETWORK_ERROR"> {
    const reason = cause instanceof Error ? cause.message : String(cause)
    return LoreApiError.client("NETWORK_ERROR", "Network Error", `${request.method} ${request.url} failed before a response: ${reason}`, {
      cause,
      requestId: request.headers.get("x-request-id") ?? ""
    })
  }

  /** An error of the SDK itself (status 0): nothing was sent, or nothing came back. */
  static client<const C extends ClientErrorCode>(
    code: C,
    title: string,
    detail: string,
    options: { readonly cause?: unknown; readonly requestId?: string } = {}
  ): LoreApiError<C> {
    return new LoreApiError<C>(
      { type: "about:blank", title, status: 0, code, detail, requestId: options.requestId ?? "" },
      "cause" in options ? { cause: options.cause } : undefined
    )
  }

  /** A caller's argument the SDK refuses before sending anything (code INVALID_ARGUMENT). */
  static invalidArgument(detail: string): LoreApiError<"INVALID_ARGUMENT"> {
    return LoreApiError.client("INVALID_ARGUMENT", "Invalid Argument", detail)
  }
}

/**
 * Whether `value` is a LoreApiError, and with codes, whether its code is one of them; narrows `code`
 * (and `problem.code`) to those codes. Codes are checked at compile time against every code the API
 * declares plus the SDK's own, so a misspelt code does not compile. To check against one operation's
 * codes: `isLoreError(error, "INVALID_CURSOR" satisfies ErrorCode<"listSources">)`.
 */
export function isLoreError(value: unknown): value is LoreApiError<LoreErrorCode>
export function isLoreError<const Code extends LoreErrorCode>(value: unknown, ...codes: ReadonlyArray<Code>): value is LoreApiError<Code>
export function isLoreError(value: unknown, ...codes: ReadonlyArray<string>): boolean {
  return LoreApiError.is(value) && (codes.length === 0 || codes.includes(value.code))
}
