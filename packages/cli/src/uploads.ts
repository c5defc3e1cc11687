import { type Classification, LoreApiError, type Source, type SourceAudience } from "@lore/sdk"
import { uploadFile } from "@lore/sdk/node"
import type { LoreClient } from "./context"
import { CliError, ExitCode, exitCodeForStatus } from "./errors"

/**
 * The batch upload behind `lore sources add`: files uploaded a few at a time, each followed until its
 * ingestion settles. The Ink board (output/ink.tsx) draws it from the events; this module knows nothing
 * of terminals.
 */

export interface AddOptions {
  readonly knowledgeSpaceId: string
  readonly classification?: Classification | undefined
  readonly title?: string | undefined
  /** Wait until ingestion settles (READY or ATTENTION). */
  readonly wait: boolean
  /** Files uploaded (and waited for) at the same time. */
  readonly concurrency: number
  readonly pollIntervalMs?: number
  /** Stops the batch: no new uploads, running ones and waits are aborted. */
  readonly signal?: AbortSignal | undefined
}

/** What happened to one file. `FAILED`: the upload itself was refused (415, 413, 422, ...) or broke. */
export interface AddResult {
  readonly file: string
  readonly sourceId: string | null
  readonly title: string | null
  readonly status: "PROCESSING" | "READY" | "ATTENTION" | "DELETING" | "FAILED"
  readonly failureCode?: string
  readonly failureMessage?: string
  readonly versionNumber: number | null
  /** The HTTP status that refused the file (0: no answer); only on failures of a request. */
  readonly httpStatus?: number
  /** Who can read the document, as the upload's answer said (readers, space members, in words). */
  readonly audience?: SourceAudience
}

/**
 * Progress of a batch of uploads, by the file's index in the batch (the Ink board draws from these): `S` is
 * what the server answers for one upload (a Source, an AssistantFile), `R` one file's result.
 */
export interface UploadEvents<S extends { readonly status: string }, R> {
  readonly onStart?: (index: number) => void
  readonly onProgress?: (index: number, sent: number, total: number | undefined) => void
  /** The server answered the upload: the resource exists and its processing has begun. */
  readonly onUploaded?: (index: number, uploaded: S) => void
  /** Each state seen while waiting for processing to settle. */
  readonly onStatus?: (index: number, current: S) => void
  readonly onDone?: (index: number, result: R) => void
}

export type AddEvents = UploadEvents<Source, AddResult>

const failureOf = (error: unknown): { code: string; message: string; httpStatus?: number } => {
  if (LoreApiError.is(error)) return { code: error.code, message: error.detail || error.message, httpStatus: error.status }
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return { code: typeof code === "string" ? code : "UPLOAD_FAILED", message: error instanceof Error ? error.message : String(error) }
}

/** `audience` comes from the upload's answer: later reads of the source do not repeat it. */
const resultOf = (file: string, source: Source, audience = source.audience): AddResult => ({
  file,
  sourceId: source.id,
  title: source.title,
  status: source.status as AddResult["status"],
  ...(source.failureCode ? { failureCode: source.failureCode } : {}),
  ...(source.failureMessage ? { failureMessage: source.failureMessage } : {}),
  versionNumber: source.versionNumber,
  ...(audience ? { audience } : {})
})

const failedResult = (file: string, error: unknown): AddResult => {
  const failure = failureOf(error)
  return {
    file,
    sourceId: null,
    title: null,
    status: "FAILED",
    failureCode: failure.code,
    failureMessage: failure.message,
    versionNumber: null,
    ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus })
  }
}

const addOne = async (lore: LoreClient, file: string, index: number, options: AddOptions, events: AddEvents): Promise<AddResult> => {
  events.onStart?.(index)
  let source: Source
  try {
    source = await uploadFile(lore, file, {
      knowledgeSpaceId: options.knowledgeSpaceId,
      classification: options.classification,
      title: options.title,
      signal: options.signal,
      onProgress: (sent, total) => events.onProgress?.(index, sent, total)
    })
  } catch (error) {
    return failedResult(file, error)
  }
  events.onUploaded?.(index, source)
  if (!options.wait) return resultOf(file, source)
  try {
    const settled = await lore.sources.waitUntilSettled(source.id, {
      intervalMs: options.pollIntervalMs ?? 500,
      signal: options.signal,
      onStatus: (current) => events.onStatus?.(index, current)
    })
    return resultOf(file, settled, source.audience)
  } catch (error) {
    // Uploaded, but we stopped knowing how ingestion went (timeout, network): say so, keep the id.
    const failure = failureOf(error)
    return { ...resultOf(file, source), failureCode: failure.code, failureMessage: failure.message, ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }) }
  }
}

/**
 * Uploads files into a space, `concurrency` at a time, each followed (unless `wait` is false) until
 * READY or ATTENTION. A refused file (415, 413, 422) is reported in its result and the others go on.
 * Results are in the order of `files`.
 */
export const addSources = async (lore: LoreClient, files: ReadonlyArray<string>, options: AddOptions, events: AddEvents = {}): Promise<Array<AddResult>> => {
  const results: Array<AddResult> = new Array(files.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < files.length && !options.signal?.aborted; index = next++) {
      results[index] = await addOne(lore, files[index]!, index, options, events)
      events.onDone?.(index, results[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, files.length)) }, worker))
  return results
}

/** The exit code a result calls for; undefined when the file is fine (READY, or PROCESSING with --no-wait). */
export const exitCodeOfResult = (result: AddResult): ExitCode | undefined => {
  if (result.status === "READY" || (result.status === "PROCESSING" && !result.failureCode)) return undefined
  if (result.failureCode === "WAIT_TIMEOUT") return ExitCode.unexpected
  if (result.httpStatus !== undefined) return exitCodeForStatus(result.httpStatus)
  return result.status === "FAILED" ? ExitCode.unexpected : ExitCode.invalid
}

/**
 * Some files of a batch were not added: the per-file results are still the command's output. With
 * --json the results array is the one document on stdout (lore.ts prints an error's toJSON), not an
 * `{error}` object, so a script reads every file's outcome and the exit code says that not all went well.
 */
export class SomeSourcesFailed extends CliError {
  constructor(
    exitCode: ExitCode,
    detail: string,
    readonly results: ReadonlyArray<AddResult>
  ) {
    super(exitCode, "SOURCES_FAILED", detail)
  }

  override toJSON() {
    return this.results as unknown as ReturnType<CliError["toJSON"]>
  }
}

/** Throws SomeSourcesFailed when any file was not added, with the worst exit code among them. */
export const failIfAny = (results: ReadonlyArray<AddResult>) => {
  const failed = results.filter((result) => exitCodeOfResult(result) !== undefined)
  if (failed.length === 0) return
  const codes = failed.map((result) => exitCodeOfResult(result)!)
  const exitCode = codes.find((code) => code !== ExitCode.invalid) ?? ExitCode.invalid
  // Each file with its code and the server's words, which say what was wrong (a 413 names the limit).
  const names = failed
    .map((result) => {
      const what = [result.status === "FAILED" ? "" : result.status, result.failureCode ?? ""].join(" ").trim()
      return `${result.file}: ${what}${result.failureMessage ? ` (${result.failureMessage})` : ""}`
    })
    .join("; ")
  throw new SomeSourcesFailed(exitCode, `${failed.length} of ${results.length} file${results.length === 1 ? "" : "s"} failed: ${names}`, results)
}
