import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { readFile } from "node:fs/promises"
import { Settings } from "../../Config"
import { transactional } from "../../db/Sql"
import { PayloadTooLarge } from "../../domain/Errors"
import type { Principal } from "../../domain/Principal"
import { UUID_PATTERN } from "../../domain/Schemas"
import { JobQueue } from "../../jobs/JobQueue"
import { detectMediaType } from "../../knowledge/parsing"
import { AssistantFileNotFound, type AssistantFileNotReady, FileChunkNotFound } from "./Errors"
import { ProcessAssistantFile } from "./Jobs"
import { usableAsContext } from "./Policy"
import { type ChunkRow, type FileRow, FilesRepo } from "./Repo"
import { RateLimits } from "../RateLimits"
import { quoteInput } from "../../domain/Echo"

export interface UploadedFile {
  readonly path: string
  readonly name: string
  readonly contentType: string
}

/** One passage of a caller's own file, for the chat to quote and cite. */
export interface FilePassage {
  readonly fileId: string
  readonly fileName: string
  readonly mediaType: string
  readonly chunkId: string
  readonly generation: number
  readonly ordinal: number
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
  /** BM25 score for the query; 0 for a passage given as a fallback (the opening of a file). */
  readonly score: number
  /** Whether the passage matched the query (false: one of the file's first chunks, given so the file is never silent). */
  readonly matched: boolean
}

export interface PassagesRequest {
  readonly fileIds: ReadonlyArray<string>
  readonly query: string
  /** Most passages in all (default 8). */
  readonly limit?: number
  /** Leading chunks of each file added when the query matches too little (default 2). */
  readonly fallbackPerFile?: number
}

const notFound = new AssistantFileNotFound({ detail: "No file with this id among yours (files are private, and expired files are deleted)" })

/** What the API shows of a file. */
const describe = (row: FileRow) => ({
  id: row.id,
  fileName: row.fileName,
  mediaType: row.mediaType,
  contentLength: row.contentLength,
  status: row.status,
  failureCode: row.failureCode,
  failureMessage: row.failureMessage,
  generation: row.generation,
  pageCount: row.pageCount,
  chunkCount: row.chunkCount,
  expiresAt: row.expiresAt,
  createdAt: row.createdAt
})

const passage = (file: FileRow, chunk: ChunkRow, score: number, matched: boolean): FilePassage => ({
  fileId: file.id,
  fileName: file.fileName,
  mediaType: file.mediaType,
  chunkId: chunk.id,
  generation: chunk.generation,
  ordinal: chunk.ordinal,
  heading: chunk.heading,
  headingPath: chunk.headingPath,
  startPage: chunk.startPage,
  endPage: chunk.endPage,
  content: chunk.content,
  score,
  matched
})

/**
 * Assistant files: documents a user attaches to their own chats. Private to the owner (every read is scoped
 * to them), never written to the shared knowledge index, deleted when they expire.
 */
export class AssistantFiles extends Effect.Service<AssistantFiles>()("lore/AssistantFiles", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* FilesRepo
    const queue = yield* JobQueue
    const rateLimits = yield* RateLimits
    const settings = yield* Settings
    const maxBytes = Math.min(settings.maxUploadBytes, settings.assistantFiles.maxBytes)

    const owned = (caller: Principal, fileId: string) =>
      Effect.flatMap(repo.owned(caller.userId, fileId), (row) => (row ? Effect.succeed(row) : Effect.fail(notFound)))

    /**
     * Stores the bytes and queues their processing; answers the file UPLOADED. Anything within the size limit
     * is accepted: what cannot be read (unsupported, empty, corrupt) ends FAILED with a failureCode.
     */
    const upload = (caller: Principal, file: UploadedFile) =>
      Effect.gen(function* () {
        yield* rateLimits.consume(caller, "fileUpload")
        const bytes = new Uint8Array(yield* Effect.promise(() => readFile(file.path)))
        if (bytes.byteLength > maxBytes) {
          return yield* new PayloadTooLarge({ detail: `Assistant files are limited to ${maxBytes} bytes (LORE_ASSISTANT_FILE_MAX_BYTES)` })
        }
        const declared = file.contentType.trim() === "" ? null : file.contentType
        const detected = detectMediaType(bytes, file.name, declared ?? undefined)
        const mediaType = detected._tag === "Supported" ? detected.mediaType
          : detected._tag === "Unsupported" ? detected.detected
          : "application/octet-stream"
        const id = randomUUID()
        const stored = yield* transaction(
          Effect.gen(function* () {
            yield* repo.insert({
              id,
              organizationId: caller.organizationId,
              ownerId: caller.userId,
              fileName: file.name,
              mediaType,
              declaredMediaType: declared,
              contentLength: bytes.byteLength,
              contentDigest: createHash("sha256").update(bytes).digest("hex"),
              retentionMs: settings.assistantFiles.retentionMs
            })
            yield* repo.putContent(id, bytes)
            yield* queue.enqueueJob(ProcessAssistantFile, { fileId: id }, { dedupeKey: `assistant-file:${id}`, maxAttempts: 3 })
            // Read before the commit, so the answer is the first status (UPLOADED) whatever a worker does next.
            return yield* repo.owned(caller.userId, id)
          })
        )
        // Just written in this transaction: its absence would be a defect.
        if (!stored) return yield* Effect.dieMessage(`assistant file ${id} vanished after its insert`)
        return describe(stored)
      })

    const list = (caller: Principal, query: { readonly page: number; readonly limit: number }) =>
      Effect.map(repo.page(caller.userId, query.page * query.limit, query.limit + 1), (rows) => ({
        items: rows.slice(0, query.limit).map(describe),
        page: query.page,
        hasMore: rows.length > query.limit
      }))

    const get = (caller: Principal, fileId: string) => Effect.map(owned(caller, fileId), describe)

    const remove = (caller: Principal, fileId: string) =>
      Effect.gen(function* () {
        yield* owned(caller, fileId)
        if (!(yield* transaction(repo.deleteOwned(caller.userId, fileId)))) return yield* notFound
      })

    const content = (caller: Principal, fileId: string) =>
      Effect.gen(function* () {
        const row = yield* owned(caller, fileId)
        const bytes = yield* repo.content(fileId)
        if (!bytes) return yield* notFound
        return { file: describe(row), bytes }
      })

    const chunk = (caller: Principal, fileId: string, chunkId: string, generation?: number) =>
      Effect.gen(function* () {
        const row = yield* owned(caller, fileId)
        if (generation !== undefined && generation !== row.generation) {
          return yield* new FileChunkNotFound({ detail: `The file is at generation ${row.generation}; chunk ids of generation ${generation} are gone` })
        }
        const found = yield* repo.chunk(fileId, chunkId, row.generation)
        if (!found) return yield* new FileChunkNotFound({ detail: "No chunk with this id in this file" })
        return {
          id: found.id,
          fileId,
          generation: found.generation,
          title: row.fileName,
          heading: found.heading,
          startPage: found.startPage,
          endPage: found.endPage,
          content: found.content
        }
      })

    /**
     * The passages of the caller's own READY files most relevant to `query` (BM25 within those files), then,
     * when that leaves room, the first chunks of each file, so a question like "summarize this" still gets
     * the file's opening. Fails with 404 ASSISTANT_FILE_NOT_FOUND for an id that is not the caller's (or
     * expired) and 409 ASSISTANT_FILE_NOT_READY for one still processing or FAILED; the chat should surface
     * both before it starts streaming.
     */
    const passagesFor = (
      caller: Principal,
      request: PassagesRequest
    ): Effect.Effect<ReadonlyArray<FilePassage>, AssistantFileNotFound | AssistantFileNotReady> =>
      Effect.gen(function* () {
        const fileIds = [...new Set(request.fileIds.map((id) => id.toLowerCase()))]
        if (fileIds.length === 0) return []
        const limit = Math.max(1, request.limit ?? 8)
        // An id that is not even a uuid names no file (and must not reach the uuid[] cast).
        const malformed = fileIds.find((id) => !UUID_PATTERN.test(id))
        if (malformed !== undefined) return yield* new AssistantFileNotFound({ detail: "A file id is not a uuid, so it names none of your files" })
        const files = yield* repo.ownedMany(caller.userId, fileIds)
        const byId = new Map(files.map((file) => [file.id, file]))
        for (const id of fileIds) {
          const file = byId.get(id)
          if (!file) return yield* new AssistantFileNotFound({ detail: `No file ${quoteInput(id, 60)} among yours (files are private, and expired files are deleted)` })
          yield* usableAsContext(file)
        }
        const scored = request.query.trim() === "" ? [] : yield* repo.rank(fileIds, request.query, limit)
        const matchedChunks = scored.length === 0 ? [] : yield* repo.chunksByIds(scored.map((s) => s.id))
        const chunkById = new Map(matchedChunks.map((c) => [c.id, c]))
        const passages: Array<FilePassage> = []
        for (const { id, score } of scored) {
          const found = chunkById.get(id)
          if (found) passages.push(passage(byId.get(found.fileId)!, found, score, true))
        }
        if (passages.length < limit) {
          const taken = new Set(passages.map((p) => p.chunkId))
          const leading = yield* repo.leadingChunks(fileIds, Math.max(1, request.fallbackPerFile ?? 2))
          // Round-robin over the files, so each attached file contributes its opening.
          const perFile = fileIds.map((id) => leading.filter((c) => c.fileId === id && !taken.has(c.id)))
          for (let i = 0; passages.length < limit && perFile.some((list) => i < list.length); i++) {
            for (const list of perFile) {
              const next = list[i]
              if (next && passages.length < limit) passages.push(passage(byId.get(next.fileId)!, next, 0, false))
            }
          }
        }
        return passages
      })

    return { upload, list, get, remove, content, chunk, passagesFor }
  }),
  dependencies: [FilesRepo.Default, RateLimits.Default]
}) {}
