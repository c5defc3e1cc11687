import { LoreApiError } from "@lore/sdk"

/** One entry of a problem's `errors[]`: which field broke which rule (`payload.userTemplate`, ...). */
export interface CliFieldError {
  readonly path: string
  readonly message: string
  readonly code?: string
}

/** The documented exit codes (docs/cli.md, `lore --help`). Scripts depend on them: never renumber. */
export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  notAuthenticated: 3,
  forbidden: 4,
  notFound: 5,
  invalid: 6,
  unreachable: 7
} as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

export const exitCodeHelp = `Exit codes:
  0  success
  1  unexpected error
  2  usage error (unknown command, bad flags or arguments, missing --server/--token)
  3  not authenticated (401, or no stored credentials)
  4  forbidden (403)
  5  not found (404)
  6  conflict or validation error (400, 409, 413, 415, 422)
  7  server unreachable (network error, 5xx)`

/**
 * The one error the CLI reports. `status` and `requestId` come from the server when there was a
 * response; a failure found locally (bad flag, no credentials) has status 0 and no request id.
 */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    readonly code: string,
    readonly detail: string,
    readonly status = 0,
    readonly requestId: string | undefined = undefined,
    /** Extra lines for people (what to do next); never part of the JSON error. */
    readonly hint: string | undefined = undefined,
    /** The server's `errors[]` (each field and the rule it broke); `[]` when there were none. */
    readonly errors: ReadonlyArray<CliFieldError> = []
  ) {
    super(detail)
    this.name = "CliError"
  }

  /** The --json error document; `errors` is always an array, so scripts need not test for it. */
  toJSON(): { error: Record<string, unknown> } {
    return { error: { status: this.status, code: this.code, detail: this.detail, requestId: this.requestId ?? null, errors: this.errors.map(fieldErrorJson) } }
  }
}

const fieldErrorJson = (entry: CliFieldError) => (entry.code === undefined ? { path: entry.path, message: entry.message } : { path: entry.path, message: entry.message, code: entry.code })

/** A problem's `errors[]` as the CLI keeps it; anything that is not a {path, message} entry is dropped. */
export const fieldErrorsOf = (errors: unknown): ReadonlyArray<CliFieldError> =>
  Array.isArray(errors)
    ? errors.flatMap((entry) =>
        typeof entry === "object" && entry !== null && typeof entry.message === "string"
          ? [{ path: typeof entry.path === "string" ? entry.path : "", message: entry.message, ...(typeof entry.code === "string" ? { code: entry.code } : {}) }]
          : []
      )
    : []

export const usageError = (detail: string, hint?: string) =>
  new CliError(ExitCode.usage, "USAGE_ERROR", detail, 0, undefined, hint)

export const notAuthenticated = (detail: string) => new CliError(ExitCode.notAuthenticated, "NOT_AUTHENTICATED", detail)

export const exitCodeForStatus = (status: number): ExitCode => {
  if (status === 0 || status >= 500) return ExitCode.unreachable
  if (status === 401) return ExitCode.notAuthenticated
  if (status === 403) return ExitCode.forbidden
  if (status === 404) return ExitCode.notFound
  if ([400, 409, 413, 415, 422].includes(status)) return ExitCode.invalid
  return ExitCode.unexpected
}

/** fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND, ...) is in its cause. */
const networkReason = (error: Error): string => {
  let cause: unknown = error.cause
  for (let depth = 0; depth < 4 && cause instanceof Error; depth++) {
    const code = (cause as NodeJS.ErrnoException).code
    if (code) return ` (${code})`
    cause = cause.cause
  }
  return ""
}

/** Anything thrown by a command becomes a CliError; an unknown throwable is exit 1 with its message. */
export const toCliError = (error: unknown): CliError => {
  if (error instanceof CliError) return error
  if (LoreApiError.is(error)) {
    const detail = (error.detail || error.message || `HTTP ${error.status}`) + (error.status === 0 ? networkReason(error) : "")
    return new CliError(exitCodeForStatus(error.status), error.code || "HTTP_ERROR", detail, error.status, error.requestId ?? undefined, undefined, fieldErrorsOf(error.errors))
  }
  const detail = error instanceof Error ? error.message : String(error)
  return new CliError(ExitCode.unexpected, "UNEXPECTED", detail)
}

/** `  <path>: <message>`: one line per field error, the path left out when the error names none. */
export const fieldErrorLines = (errors: ReadonlyArray<CliFieldError>) =>
  errors.map((entry) => `  ${entry.path ? `${entry.path}: ` : ""}${entry.message}`)

/**
 * `error: <detail> (code CODE, request id R)`, then one `  <path>: <message>` line per field error, then
 * the hint — the human form on stderr.
 */
export const formatError = (error: CliError) => {
  const facts = [`code ${error.code}`]
  if (error.requestId) facts.push(`request id ${error.requestId}`)
  return [`error: ${error.detail} (${facts.join(", ")})`, ...fieldErrorLines(error.errors), ...(error.hint ? [error.hint] : [])].join("\n")
}

/**
 * An answer that failed inside its stream (the model or the gateway broke after the answer started): status 0,
 * as for every failure with no HTTP status of its own, with the conversation and the saved FAILED message,
 * so a script can retry in the same conversation or show the message.
 */
export class AnswerFailedError extends CliError {
  constructor(
    detail: string,
    requestId: string | undefined,
    readonly conversationId: string | undefined,
    readonly messageId: string | undefined
  ) {
    super(ExitCode.unexpected, "ANSWER_FAILED", detail, 0, requestId)
  }

  override toJSON() {
    const base = super.toJSON()
    return { error: { ...base.error, conversationId: this.conversationId ?? null, messageId: this.messageId ?? null } }
  }
}
