import type { Runtime } from "../context"
import { CliError, ExitCode, formatError, usageError } from "../errors"
import { writePlain } from "./plain"
import type { ProgressReporter } from "./progress"
import type { View } from "./view"

export type { Progress, ProgressReporter } from "./progress"

/**
 * The one way a command shows its result. `run` does the work, `json` is the machine document (default:
 * the result itself), `view` the human one. The output mode decides: --json writes one JSON document,
 * piped output is plain text (hints on stderr), a terminal gets a spinner and then the view, drawn by Ink.
 */
export interface Presentation<T> {
  /** Spinner label on a terminal while `run` is pending. */
  readonly progress: string
  /** The work; it may report progress (shown on a terminal only). */
  readonly run: (progress: ProgressReporter) => Promise<T>
  readonly view: (result: T) => View
  readonly json?: (result: T) => unknown
}

/** The Ink renderer, loaded only for a terminal, so pipes and --json never load React. */
export const loadInk = async (runtime: Pick<Runtime, "color">) => {
  // chalk (inside Ink) decides on colors when it loads, so --no-color / NO_COLOR must be in place first.
  if (!runtime.color) process.env.FORCE_COLOR = "0"
  return import("./ink")
}

const ignoreProgress: ProgressReporter = () => {}

/** Whether this run has written its --json document (there is exactly one per run). */
let documentWritten = false

export const writeJson = (value: unknown) => {
  documentWritten = true
  process.stdout.write(JSON.stringify(value, null, 2) + "\n")
}

export const present = async <T>(runtime: Runtime, presentation: Presentation<T>): Promise<T> => {
  switch (runtime.output) {
    case "json": {
      const result = await presentation.run(ignoreProgress)
      writeJson(presentation.json ? presentation.json(result) : result)
      return result
    }
    case "plain": {
      const result = await presentation.run(ignoreProgress)
      writePlain(presentation.view(result))
      return result
    }
    case "tty": {
      const ink = await loadInk(runtime)
      return ink.runTask(presentation.progress, presentation.run, presentation.view)
    }
  }
}

/** A warning for people; always stderr so it never corrupts --json or piped output. */
export const notice = (runtime: Runtime, text: string) => {
  const colored = runtime.color && process.stderr.isTTY
  process.stderr.write(colored ? `\u001b[33mwarning:\u001b[39m ${text}\n` : `warning: ${text}\n`)
}

/**
 * With --json the error is the one document on stdout. A command that already wrote its result (a batch
 * whose items carry their own outcomes, then exits non-zero) keeps that result as the document, and the
 * error goes to stderr: stdout never holds two documents.
 */
export const reportError = (error: CliError, json: boolean) => {
  if (json && !documentWritten) writeJson(error.toJSON())
  else process.stderr.write(formatError(error) + "\n")
}

/**
 * Asks for a value on a terminal; in CI or without a terminal it fails at once naming the flag to pass,
 * so a script never hangs on a prompt.
 */
export const ask = async (
  runtime: Runtime,
  question: { readonly label: string; readonly flag: string; readonly secret?: boolean; readonly defaultValue?: string }
): Promise<string> => {
  if (!runtime.canPrompt) {
    throw usageError(`missing ${question.flag}: cannot prompt (stdin is not a terminal or CI is set); pass ${question.flag}`)
  }
  const ink = await loadInk(runtime)
  const answer = await ink.ask(question.label, question.secret ?? false, question.defaultValue)
  if (answer === undefined) throw new CliError(ExitCode.unexpected, "CANCELLED", "cancelled")
  const trimmed = answer.trim()
  if (trimmed === "") throw usageError(`empty ${question.flag}`)
  return trimmed
}

/**
 * Something that cannot be undone asks first, on a terminal. Without one (or in CI) it fails at once,
 * before any request, naming the flag that skips the question, so a script learns it at once.
 */
export const requireConfirmation = (runtime: Runtime, what: string, flag = "--yes") => {
  if (!runtime.canPrompt) throw usageError(`refusing to ${what} without confirmation: cannot prompt (stdin is not a terminal or CI is set); pass ${flag}`)
}

/** A yes/no question on a terminal (after requireConfirmation); no, the default, cancels with exit 1. */
export const confirm = async (runtime: Runtime, question: string, nothingDone: string) => {
  const ink = await loadInk(runtime)
  if (!(await ink.confirm(question))) throw new CliError(ExitCode.unexpected, "CANCELLED", `cancelled; ${nothingDone}`)
}
