import type { components } from "./generated/openapi"

export type Problem = components["schemas"]["Problem"]
export type FieldError = NonNullable<Problem["errors"]>[number]

const isProblem = (value: unknown): value is Problem =>
  typeof value === "object" && value !== null && typeof (value as Problem).code === "string" &&
  typeof (value as Problem).status === "number"

/**
 * The one error the SDK throws. Server errors carry the problem+json body as `problem`; a body that is
 * not problem+json (a proxy's HTML 502, say) still gives a LoreApiError, with code `HTTP_<status>`;
 * a request that never got an answer has status 0 and code NETWORK_ERROR, with the original `cause`.
 */
export class LoreApiError extends Error {
  override readonly name = "LoreApiError"
  readonly status: number
  readonly code: string
  readonly detail: string
  readonly requestId: string | undefined
  readonly errors: ReadonlyArray<FieldError> | undefined
  /** The parsed error body when it was problem+json; otherwise a problem synthesized from the status. */
  readonly problem: Problem

  constructor(problem: Problem, options?: { cause?: unknown }) {
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

  static network(cause: unknown, request: Request): LoreApiError {
    const reason = cause instanceof Error ? cause.message : String(cause)
    return new LoreApiError(
      {
        type: "about:blank",
        title: "Network Error",
        status: 0,
        code: "NETWORK_ERROR",
        detail: `${request.method} ${request.url} failed before a response: ${reason}`,
        requestId: request.headers.get("x-request-id") ?? ""
      },
      { cause }
    )
  }
}
