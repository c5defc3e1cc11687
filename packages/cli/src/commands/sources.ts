import { type Classification, classificationValues, type KnowledgeSpaceRef, LoreApiError, sourceStatusValues, type Source, type SourceDeletion, type SourcePage, type SourceQuery } from "@lore/sdk"
import { uploadFile } from "@lore/sdk/node"
import { type Command, InvalidArgumentError } from "commander"
import { type CommandModule, handler } from "../command"
import type { LoreClient, Runtime } from "../context"
import { CliError, ExitCode, exitCodeForStatus, usageError } from "../errors"
import { filesFromArguments, formatBytes, safeFileName, saveDownload, type SavedFile } from "../output/files"
import { present, writeJson } from "../output/render"
import { loadKnowledgeInk, plainView, type RichBlock, type RichView } from "../output/rich"
import { renderPlain } from "../output/plain"
import { type Cell, formatDate, formatTime, styled, type Tone, type View } from "../output/view"

// ---- options shared by the knowledge commands (sources, search, catalog, cite) ----

export const CLASSIFICATIONS = classificationValues

export const parseClassification = (value: string): Classification => {
  const upper = value.toUpperCase()
  if (!(CLASSIFICATIONS as ReadonlyArray<string>).includes(upper)) throw new InvalidArgumentError(`one of ${CLASSIFICATIONS.join(", ")}`)
  return upper as Classification
}

export const parseCount = (min: number, max: number) => (value: string) => {
  const count = Number(value)
  if (!/^\d+$/.test(value) || count < min || count > max) throw new InvalidArgumentError(`a whole number from ${min} to ${max}`)
  return count
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const requireUuid = (value: string, what: string, hint: string) => {
  if (!UUID.test(value)) throw usageError(`'${value}' is not a ${what} id`, hint)
  return value
}

const spacesHint = (spaces: ReadonlyArray<KnowledgeSpaceRef>, what: string) =>
  spaces.length === 0 ? `There is no space you can ${what}.` : `Spaces you can ${what}: ${spaces.map((space) => `${space.key} (${space.name})`).join(", ")}`

/**
 * A knowledge space named by key or id on the command line. `upload`: among the spaces the caller may
 * add documents to; `read`: among those the caller may see. Unknown: exit 5, listing the candidates.
 */
export const resolveSpace = async (lore: LoreClient, spec: string, purpose: "read" | "upload"): Promise<KnowledgeSpaceRef> => {
  const spaces = purpose === "upload" ? await lore.knowledgeSpaces.uploadTargets() : await lore.knowledgeSpaces.visible()
  const wanted = spec.trim()
  const find = (candidates: ReadonlyArray<KnowledgeSpaceRef>) =>
    candidates.find((space) => space.id.toLowerCase() === wanted.toLowerCase() || space.key === wanted) ??
    candidates.find((space) => space.key.toLowerCase() === wanted.toLowerCase())
  const found = find(spaces)
  if (found) return found
  const what = purpose === "upload" ? "upload into" : "see"
  if (purpose === "upload") {
    const visible = find(await lore.knowledgeSpaces.visible())
    if (visible) {
      throw new CliError(ExitCode.forbidden, "UPLOAD_NOT_ALLOWED", `you may not add documents to '${visible.key}': contributor access is needed`, 0, undefined, spacesHint(spaces, what))
    }
  }
  throw new CliError(ExitCode.notFound, "SPACE_NOT_FOUND", `no knowledge space '${spec}' that you can ${what}`, 0, undefined, spacesHint(spaces, what))
}

// ---- sources add ----

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
}

/** Progress of a batch, by the file's index in the batch (the Ink board draws from these). */
export interface AddEvents {
  readonly onStart?: (index: number) => void
  readonly onProgress?: (index: number, sent: number, total: number | undefined) => void
  readonly onUploaded?: (index: number, source: Source) => void
  readonly onStatus?: (index: number, source: Source) => void
  readonly onDone?: (index: number, result: AddResult) => void
}

const failureOf = (error: unknown): { code: string; message: string; httpStatus?: number } => {
  if (LoreApiError.is(error)) return { code: error.code, message: error.detail || error.message, httpStatus: error.status }
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  return { code: typeof code === "string" ? code : "UPLOAD_FAILED", message: error instanceof Error ? error.message : String(error) }
}

const resultOf = (file: string, source: Source): AddResult => ({
  file,
  sourceId: source.id,
  title: source.title,
  status: source.status as AddResult["status"],
  ...(source.failureCode ? { failureCode: source.failureCode } : {}),
  ...(source.failureMessage ? { failureMessage: source.failureMessage } : {}),
  versionNumber: source.versionNumber
})

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
    const failure = failureOf(error)
    return { file, sourceId: null, title: null, status: "FAILED", failureCode: failure.code, failureMessage: failure.message, versionNumber: null, ...(failure.httpStatus === undefined ? {} : { httpStatus: failure.httpStatus }) }
  }
  events.onUploaded?.(index, source)
  if (!options.wait) return resultOf(file, source)
  try {
    const settled = await lore.sources.waitUntilSettled(source.id, {
      intervalMs: options.pollIntervalMs ?? 500,
      signal: options.signal,
      onStatus: (current) => events.onStatus?.(index, current)
    })
    return resultOf(file, settled)
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

const statusTone = (status: string): Tone => (status === "READY" ? "success" : status === "PROCESSING" ? "warning" : "error")

/** One aligned line per finished file: status, file, source id, version and what went wrong. */
export const resultLine = (result: AddResult, fileWidth: number): RichBlock => {
  const problem = result.failureCode ? `${result.failureCode}: ${result.failureMessage ?? ""}`.trim() : ""
  const version = result.versionNumber === null ? "" : `v${result.versionNumber}`
  return {
    kind: "line",
    spans: [
      { text: result.status.padEnd(10), tone: statusTone(result.status), bold: true },
      { text: `  ${result.file.padEnd(fileWidth)}  ` },
      { text: (result.sourceId ?? "-").padEnd(36), tone: "muted" },
      { text: [version, problem].filter((part) => part !== "").map((part) => `  ${part}`).join(""), ...(problem ? { tone: "error" as const } : {}) }
    ]
  }
}

const addSummary = (results: ReadonlyArray<AddResult>, space: KnowledgeSpaceRef): RichView => {
  const count = (status: string) => results.filter((result) => result.status === status).length
  const parts = [
    [count("READY"), "ready"],
    [count("PROCESSING"), "processing"],
    [count("ATTENTION"), "need attention"],
    [count("FAILED"), "refused"]
  ].filter(([n]) => (n as number) > 0)
  const bad = results.some((result) => exitCodeOfResult(result) !== undefined)
  return [{ kind: "message", tone: bad ? "warning" : "success", text: `${results.length} file${results.length === 1 ? "" : "s"} into ${space.key}: ${parts.map(([n, label]) => `${n} ${label}`).join(", ")}` }]
}

const failIfAny = (results: ReadonlyArray<AddResult>) => {
  const failed = results.filter((result) => exitCodeOfResult(result) !== undefined)
  if (failed.length === 0) return
  const codes = failed.map((result) => exitCodeOfResult(result)!)
  const exitCode = codes.find((code) => code !== ExitCode.invalid) ?? ExitCode.invalid
  const names = failed.map((result) => `${result.file}: ${[result.status === "FAILED" ? "" : result.status, result.failureCode ?? ""].join(" ").trim()}`).join(", ")
  throw new SomeSourcesFailed(exitCode, `${failed.length} of ${results.length} file${results.length === 1 ? "" : "s"} failed: ${names}`, results)
}

const runAdd = async (runtime: Runtime, patterns: ReadonlyArray<string>, flags: AddFlags) => {
  if (!flags.space) throw usageError("missing --space: pass --space <key|id> (the knowledge space to add the files to)")
  const files = await filesFromArguments(patterns)
  if (flags.title !== undefined && files.length !== 1) throw usageError(`--title applies to a single file, but ${files.length} files were given`)
  const lore = runtime.client({ requireToken: true })
  const space = await resolveSpace(lore, flags.space, "upload")
  const options: AddOptions = { knowledgeSpaceId: space.id, classification: flags.classification, title: flags.title, wait: flags.wait, concurrency: flags.concurrency }
  const fileWidth = Math.min(60, Math.max(4, ...files.map((file) => file.length)))
  let results: Array<AddResult>
  switch (runtime.output) {
    case "json":
      results = await addSources(lore, files, options)
      failIfAny(results)
      writeJson(results)
      return
    case "plain": {
      // One line per file as it finishes, so a long batch shows progress in a log too.
      const onDone = (_: number, result: AddResult) => process.stdout.write(renderPlain(plainView([resultLine(result, fileWidth)])))
      results = await addSources(lore, files, options, { onDone })
      break
    }
    case "tty": {
      const ink = await loadKnowledgeInk(runtime)
      results = await ink.runUploadBoard(
        files,
        (events, signal) => addSources(lore, files, { ...options, signal }, events),
        (result) => resultLine(result, fileWidth),
        (done) => addSummary(done, space)
      )
      break
    }
  }
  failIfAny(results)
}

interface AddFlags {
  readonly space?: string
  readonly classification?: Classification
  readonly title?: string
  readonly wait: boolean
  readonly concurrency: number
}

// ---- sources list / show / rm / open ----

export interface SourceListing {
  readonly items: ReadonlyArray<Source>
  /** All sources matching the filters, and their statuses, as the first page counted them. */
  readonly total: number
  readonly statusCounts: SourcePage["statusCounts"]
  /** Where to continue (more exist), or null when the list is complete. */
  readonly nextCursor: string | null
}

/** Up to `limit` sources (undefined: all of them), newest first, fetched in pages of up to 200. */
export const listSources = async (lore: LoreClient, filters: Omit<SourceQuery, "cursor" | "pageSize">, limit: number | undefined): Promise<SourceListing> => {
  const items: Array<Source> = []
  let first: SourcePage | undefined
  let cursor: string | undefined
  for (;;) {
    const pageSize = limit === undefined ? 200 : Math.min(200, limit - items.length)
    const page = await lore.sources.list({ ...filters, pageSize, ...(cursor ? { cursor } : {}) })
    first ??= page
    items.push(...page.items)
    const next = page.nextCursor ?? undefined
    const done = next === undefined || next === cursor || (limit !== undefined && items.length >= limit)
    cursor = next
    if (done) return { items, total: first.total, statusCounts: first.statusCounts, nextCursor: next ?? null }
  }
}

const sourcesTable = (listing: SourceListing): View => {
  const view: Array<View[number]> = [
    {
      kind: "table",
      columns: [{ header: "id" }, { header: "title" }, { header: "status" }, { header: "classification" }, { header: "space" }, { header: "version", align: "right" }, { header: "chunks", align: "right" }, { header: "updated" }],
      rows: listing.items.map((source) => [
        styled(source.id, "muted"),
        source.title,
        styled(source.status, statusTone(source.status)),
        source.classification,
        source.knowledgeSpaceKey,
        `v${source.versionNumber}`,
        source.chunkCount === null ? "-" : String(source.chunkCount),
        formatDate(source.updatedAt)
      ]),
      empty: "No sources."
    }
  ]
  if (listing.nextCursor) {
    const { ready, processing, attention } = listing.statusCounts
    view.push({ kind: "message", tone: "muted", text: `Showing ${listing.items.length} of ${listing.total} (${ready} ready, ${processing} processing, ${attention} attention); --all or --limit N for more.` })
  }
  return view
}

export const sourceView = (source: Source): View => [
  { kind: "heading", text: source.title },
  {
    kind: "fields",
    fields: [
      ["Id", styled(source.id, "muted")],
      ["Status", styled(source.status, statusTone(source.status))],
      ...(source.failureCode ? ([["Failure", styled(`${source.failureCode}: ${source.failureMessage ?? ""}`, "error")]] as const) : []),
      ["File", `${source.fileName} (${source.mediaType}, ${formatBytes(source.contentLength)})`],
      ["Classification", source.classification],
      ["Space", `${source.knowledgeSpaceKey} (${source.knowledgeSpaceName})`],
      ["Version", `v${source.versionNumber}`],
      ["Pages", source.pageCount === null ? "-" : String(source.pageCount)],
      ["Chunks", source.chunkCount === null ? "-" : String(source.chunkCount)],
      ["Embeddings", source.embeddingModel ? `${source.embeddingProvider ?? ""} ${source.embeddingModel} (${source.embeddingDimensions ?? "?"} dimensions)`.trim() : "none (lexical search only)"],
      ["Uploaded by", source.uploadedByName ?? "-"],
      ["Department", source.owningDepartmentName ?? "-"],
      ["Created", formatTime(source.createdAt)],
      ["Updated", formatTime(source.updatedAt)],
      ["Digest", styled(source.contentDigest, "muted")],
      ["Asset id", styled(source.knowledgeAssetId, "muted")]
    ] satisfies ReadonlyArray<readonly [string, Cell]>
  }
]

export const removeSource = async (lore: LoreClient, sourceId: string): Promise<{ readonly sourceId: string } & SourceDeletion> => ({
  sourceId,
  ...(await lore.sources.remove(sourceId))
})

/** A download saved by `sources open` or `cite --content`. */
export interface SavedDownload extends SavedFile {
  readonly mediaType: string
}

export const savedView = (saved: SavedDownload): View => [
  { kind: "message", tone: "success", text: `Saved ${formatBytes(saved.bytes)} (${saved.mediaType}) to ${saved.path}` }
]

/** The original bytes of a source, written to `output`, or to its original file name in the current directory. */
export const openSource = async (lore: LoreClient, sourceId: string, target: { readonly output: string | undefined; readonly force: boolean }) => {
  const file = await lore.sources.content(sourceId)
  const saved = await saveDownload(file.bytes, { output: target.output, force: target.force, fileName: safeFileName(file.fileName, `source-${sourceId}`) })
  return { sourceId, ...saved, mediaType: file.mediaType }
}

const sourceIdHint = "'lore sources list' shows the ids"

const cannotConfirm = () =>
  usageError("refusing to delete without confirmation: pass --yes (cannot prompt: stdin is not a terminal or CI is set)")

/** Asks on a terminal before deleting (the caller checked runtime.canPrompt); no is exit 1, nothing deleted. */
const confirmDeletion = async (runtime: Runtime, lore: LoreClient, sourceId: string) => {
  const source = await lore.sources.get(sourceId)
  const ink = await loadKnowledgeInk(runtime)
  const confirmed = await ink.confirm(`Delete '${source.title}' (${source.fileName}) from ${source.knowledgeSpaceKey}? It leaves search at once.`)
  if (!confirmed) throw new CliError(ExitCode.unexpected, "CANCELLED", "cancelled; nothing was deleted")
}

export const sourcesCommand: CommandModule = {
  register: (program: Command) => {
    const sources = program.command("sources").description("upload documents and manage them (knowledge sources)")

    sources
      .command("add")
      .description("upload files (or quoted glob patterns) into a knowledge space and wait until they are searchable")
      .argument("<files...>", "files or glob patterns ('docs/**/*.md')")
      .option("--space <key|id>", "the knowledge space to add them to (required)")
      .option("--classification <level>", "PUBLIC, INTERNAL, CONFIDENTIAL (the server's default) or RESTRICTED", parseClassification)
      .option("--title <title>", "title of the document (a single file only; default: from the file name)")
      .option("--no-wait", "return once uploaded, without waiting for ingestion")
      .option("--concurrency <n>", "files uploaded at the same time (1-16)", parseCount(1, 16), 4)
      .action(
        handler(async (runtime, command) => {
          const [patterns] = command.processedArgs as [Array<string>]
          await runAdd(runtime, patterns, command.opts<AddFlags>())
        })
      )

    sources
      .command("list")
      .description("list the sources you can see, newest first")
      .option("--space <key|id>", "only this knowledge space")
      .option("--status <status>", sourceStatusValues.join(", "), (value: string) => {
        const upper = value.toUpperCase()
        if (!(sourceStatusValues as ReadonlyArray<string>).includes(upper)) throw new InvalidArgumentError(`one of ${sourceStatusValues.join(", ")}`)
        return upper
      })
      .option("--classification <level>", "only this classification", parseClassification)
      .option("--q <text>", "only titles or file names containing this text")
      .option("--limit <n>", "at most this many (default 25)", parseCount(1, 100_000))
      .option("--all", "every matching source (fetched page by page)")
      .action(
        handler(async (runtime, command) => {
          const flags = command.opts<{ space?: string; status?: "PROCESSING" | "READY" | "ATTENTION"; classification?: Classification; q?: string; limit?: number; all?: boolean }>()
          if (flags.all && flags.limit !== undefined) throw usageError("pass either --limit or --all, not both")
          const lore = runtime.client({ requireToken: true })
          await present(runtime, {
            progress: "Loading sources",
            run: async () => {
              const space = flags.space ? await resolveSpace(lore, flags.space, "read") : undefined
              const filters = { knowledgeSpaceId: space?.id, status: flags.status, classification: flags.classification, q: flags.q }
              return listSources(lore, filters, flags.all ? undefined : (flags.limit ?? 25))
            },
            view: sourcesTable
          })
        })
      )

    sources
      .command("show")
      .description("show one source: status, failure, file, version, pages and chunks")
      .argument("<sourceId>", "the source's id")
      .action(
        handler(async (runtime, command) => {
          const [sourceId] = command.processedArgs as [string]
          requireUuid(sourceId, "source", sourceIdHint)
          const lore = runtime.client({ requireToken: true })
          await present(runtime, { progress: "Loading source", run: () => lore.sources.get(sourceId), view: sourceView })
        })
      )

    sources
      .command("rm")
      .alias("remove")
      .description("delete a source: it leaves search at once, its chunks are purged in the background")
      .argument("<sourceId>", "the source's id")
      .option("-y, --yes", "do not ask for confirmation (required without a terminal or in CI)")
      .action(
        handler(async (runtime, command) => {
          const [sourceId] = command.processedArgs as [string]
          requireUuid(sourceId, "source", sourceIdHint)
          const { yes } = command.opts<{ yes?: boolean }>()
          // Fails before any request, so a script without --yes learns the flag at once.
          if (!yes && !runtime.canPrompt) throw cannotConfirm()
          const lore = runtime.client({ requireToken: true })
          if (!yes) await confirmDeletion(runtime, lore, sourceId)
          await present(runtime, {
            progress: "Deleting source",
            run: () => removeSource(lore, sourceId),
            view: (deleted) => [{ kind: "message", tone: "success", text: `Deleted source ${deleted.sourceId}; it no longer appears in search (purge ${deleted.status.toLowerCase()})` }]
          })
        })
      )

    sources
      .command("open")
      .description("download a source's original file (default: its file name in the current directory)")
      .argument("<sourceId>", "the source's id")
      .option("-o, --output <path>", "file or directory to write to; - for stdout")
      .option("-f, --force", "overwrite an existing file")
      .action(
        handler(async (runtime, command) => {
          const [sourceId] = command.processedArgs as [string]
          requireUuid(sourceId, "source", sourceIdHint)
          const flags = command.opts<{ output?: string; force?: boolean }>()
          if (flags.output === "-" && runtime.output === "json") throw usageError("--output - writes the file to stdout, which --json needs for its document; pass a path")
          const lore = runtime.client({ requireToken: true })
          const download = () => openSource(lore, sourceId, { output: flags.output, force: flags.force ?? false })
          // With `-` the bytes are the output: no spinner, no message on stdout.
          if (flags.output === "-") await download()
          else await present(runtime, { progress: "Downloading", run: download, view: savedView })
        })
      )
  }
}
