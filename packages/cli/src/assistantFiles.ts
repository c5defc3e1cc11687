import { type AssistantFile, LoreApiError } from "@lore/sdk"
import { uploadAssistantFile } from "@lore/sdk/node"
import { isUuid } from "./arguments"
import type { LoreClient } from "./context"
import { CliError, ExitCode, exitCodeForStatus } from "./errors"
import type { UploadEvents } from "./uploads"

/**
 * The batch upload behind `lore files upload`: the caller's private assistant files, a few at a time, each
 * followed until processing settles (READY or FAILED). Knows nothing of terminals (the Ink board draws it).
 */

export interface FileUploadOptions {
  /** Wait until processing settles (READY or FAILED). */
  readonly wait: boolean
  readonly concurrency: number
  readonly pollIntervalMs?: number
  readonly signal?: AbortSignal | undefined
}

/** One file's outcome. `REFUSED`: the upload itself was refused (413, 429, ...) or broke; nothing was stored. */
export interface FileUploadResult {
  readonly file: string
  readonly fileId: string | null
  readonly status: AssistantFile["status"] | "REFUSED"
  readonly mediaType: string | null
  readonly expiresAt: string | null
  readonly failureCode?: string
  readonly failureMessage?: string
  /** The HTTP status that refused the file (0: no answer); only on refusals. */
  readonly httpStatus?: number
}

export type FileUploadEvents = UploadEvents<AssistantFile, FileUploadResult>

const failureOf = (error: unknown): { code: string; message: string; httpStatus?: number } => {
  if (LoreApiError.is(error)) return { code: error.code, message: error.detail || error.message, httpStatus: error.status }
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return { code: typeof code === "string" ? code : "UPLOAD_FAILED", message: error instanceof Error ? error.message : String(error) }
}

const resultOf = (file: string, uploaded: AssistantFile): FileUploadResult => ({
  file,
  fileId: uploaded.id,
  status: uploaded.status,
  mediaType: uploaded.mediaType,
  expiresAt: uploaded.expiresAt,
  ...(uploaded.failureCode ? { failureCode: uploaded.failureCode } : {}),
  ...(uploaded.failureMessage ? { failureMessage: uploaded.failureMessage } : {})
})

const uploadOne = async (lore: LoreClient, file: string, index: number, options: FileUploadOptions, events: FileUploadEvents): Promise<FileUploadResult> => {
  events.onStart?.(index)
  let uploaded: AssistantFile
  try {
    uploaded = await uploadAssistantFile(lore, file, { signal: options.signal, onProgress: (sent, total) => events.onProgress?.(index, sent, total) })
  } catch (error) {
    const failure = failureOf(error)
    return {
      file,
      fileId: null,
      status: "REFUSED",
      mediaType: null,
      expiresAt: null,
      failureCode: failure.code,
      failureMessage: failure.message,
      ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus })
    }
  }
  events.onUploaded?.(index, uploaded)
  if (!options.wait) return resultOf(file, uploaded)
  try {
    const settled = await lore.assistant.files.waitUntilSettled(uploaded.id, {
      intervalMs: options.pollIntervalMs ?? 500,
      signal: options.signal,
      onStatus: (current) => events.onStatus?.(index, current)
    })
    return resultOf(file, settled)
  } catch (error) {
    // Uploaded, but we stopped knowing how processing went (timeout, network): say so, keep the id.
    const failure = failureOf(error)
    return { ...resultOf(file, uploaded), failureCode: failure.code, failureMessage: failure.message }
  }
}

/** Uploads files `concurrency` at a time; a refused file is reported in its result and the others go on. Results in the order of `files`. */
export const uploadAssistantFiles = async (
  lore: LoreClient,
  files: ReadonlyArray<string>,
  options: FileUploadOptions,
  events: FileUploadEvents = {}
): Promise<Array<FileUploadResult>> => {
  const results: Array<FileUploadResult> = new Array(files.length)
  let next = 0
  const worker = async () => {
    for (let index = next++; index < files.length && !options.signal?.aborted; index = next++) {
      results[index] = await uploadOne(lore, files[index]!, index, options, events)
      events.onDone?.(index, results[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, files.length)) }, worker))
  return results
}

/** The exit code a result calls for; undefined when the file is fine (READY, or not yet settled with --no-wait). */
export const exitCodeOfFile = (result: FileUploadResult): ExitCode | undefined => {
  if (result.status === "READY" || ((result.status === "UPLOADED" || result.status === "PROCESSING") && !result.failureCode)) return undefined
  if (result.failureCode === "WAIT_TIMEOUT") return ExitCode.unexpected
  if (result.httpStatus !== undefined) return exitCodeForStatus(result.httpStatus)
  return result.status === "FAILED" ? ExitCode.invalid : ExitCode.unexpected
}

/** Some files were not made READY: with --json the results array stays the one document on stdout. */
export class SomeFilesFailed extends CliError {
  constructor(
    exitCode: ExitCode,
    detail: string,
    readonly results: ReadonlyArray<FileUploadResult>
  ) {
    super(exitCode, "FILES_FAILED", detail)
  }

  override toJSON() {
    return this.results as unknown as ReturnType<CliError["toJSON"]>
  }
}

export const failIfAnyFile = (results: ReadonlyArray<FileUploadResult>) => {
  const failed = results.filter((result) => exitCodeOfFile(result) !== undefined)
  if (failed.length === 0) return
  const codes = failed.map((result) => exitCodeOfFile(result)!)
  const exitCode = codes.find((code) => code !== ExitCode.invalid) ?? ExitCode.invalid
  const names = failed.map((result) => `${result.file}: ${result.failureCode ?? result.status}${result.failureMessage ? ` (${result.failureMessage})` : ""}`).join("; ")
  throw new SomeFilesFailed(exitCode, `${failed.length} of ${results.length} file${results.length === 1 ? "" : "s"} failed: ${names}`, results)
}

/**
 * The files a chat attaches (`--file`): an id of one of the caller's files as it is, a path uploaded now and
 * waited for until READY. A path that cannot be made READY stops the question before it is asked.
 */
export const attachFiles = async (lore: LoreClient, specs: ReadonlyArray<string>, signal?: AbortSignal): Promise<Array<string>> => {
  const paths = specs.filter((spec) => !isUuid(spec))
  const results = paths.length === 0 ? [] : await uploadAssistantFiles(lore, paths, { wait: true, concurrency: 2, signal })
  failIfAnyFile(results)
  const uploaded = new Map(results.map((result) => [result.file, result.fileId!]))
  return specs.map((spec) => (isUuid(spec) ? spec : uploaded.get(spec)!))
}
