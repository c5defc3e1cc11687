import { LoreApiError } from "@lore/sdk"

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
    readonly hint: string | undefined = undefined
  ) {
    super(detail)
    this.name = "CliError"
  }

  toJSON() {
    return { error: { status: this.status, code: this.code, detail: this.detail, requestId: this.requestId ?? null } }
  }
}

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
    return new CliError(exitCodeForStatus(error.status), error.code || "HTTP_ERROR", detail, error.status, error.requestId ?? undefined)
  }
  const detail = error instanceof Error ? error.message : String(error)
  return new CliError(ExitCode.unexpected, "UNEXPECTED", detail)
}

/** `error: <detail> (code CODE, request id R)` — the human form on stderr. */
export const formatError = (error: CliError) => {
  const facts = [`code ${error.code}`]
  if (error.requestId) facts.push(`request id ${error.requestId}`)
  const line = `error: ${error.detail} (${facts.join(", ")})`
  return error.hint ? `${line}\n${error.hint}` : line
}
