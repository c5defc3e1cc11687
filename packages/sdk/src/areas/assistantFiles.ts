import type { LoreFetchClient } from "../fetchClient"
import { download, type DownloadedFile } from "../download"
import { type UploadProgress, type UploadSource } from "../multipart"
import { encodedUpload, pollUntilSettled } from "../upload"
import { unwrap, unwrapEmpty } from "../response"
import type { AssistantFile, FileChunk, FilePage } from "../generated/openapi"
import type { Operation, QueryOf } from "../operations"

export interface AssistantFileUploadOptions {
  readonly file: UploadSource
  /** Required unless `file` is a File (which has a name). */
  readonly fileName?: string | undefined
  /** Default: the Blob's type, else guessed from the name; the server detects the type from the bytes. */
  readonly mediaType?: string | undefined
  /** The byte size of a ReadableStream `file`, reported to onProgress as total. */
  readonly size?: number | undefined
  readonly onProgress?: UploadProgress | undefined
  readonly signal?: AbortSignal | undefined
}

export interface AssistantFileWaitOptions {
  /** Between two polls (default 1000 ms). */
  readonly intervalMs?: number | undefined
  /** Give up after this long with a LoreApiError of code WAIT_TIMEOUT (default 10 minutes). */
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** Called with the file after each poll whose status differs from the previous one (and after the first). */
  readonly onStatus?: ((file: AssistantFile) => void) | undefined
}

/** page (from 0) and limit (1..100, default 20) of `lore.assistant.files.list`. */
export type AssistantFileQuery = QueryOf<"listAssistantFiles">

type UploadPayload = NonNullable<Operation<"uploadAssistantFile">["requestBody"]>["content"]["multipart/form-data"]

const settled = (status: AssistantFile["status"]) => status === "READY" || status === "FAILED"


/**
 * Files a user attaches to their own chats (`lore.assistant.files`): private to them, never in the shared
 * knowledge index, deleted when they expire (`expiresAt`). Pass their ids to the chat as `fileIds`.
 */
export class AssistantFilesArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** One page of the caller's files, newest first; `hasMore` says whether the next page has any. */
  list(query: AssistantFileQuery = {}): Promise<FilePage> {
    return unwrap(this.client.GET("/api/assistant/files", { params: { query } }))
  }

  /** Every file of the caller, fetching pages lazily. */
  async *all(limit = 100): AsyncGenerator<AssistantFile, void, undefined> {
    for (let page = 0; ; page++) {
      const found = await this.list({ page, limit })
      yield* found.items
      if (!found.hasMore) return
    }
  }

  get(fileId: string): Promise<AssistantFile> {
    return unwrap(this.client.GET("/api/assistant/files/{fileId}", { params: { path: { fileId } } }))
  }

  /** Deletes the file, its bytes and its chunks at once. */
  remove(fileId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/assistant/files/{fileId}", { params: { path: { fileId } } }))
  }

  /** The original bytes, media type and file name. */
  async content(fileId: string): Promise<DownloadedFile> {
    const { bytes, mediaType, fileName } = await download(
      this.client.GET("/api/assistant/files/{fileId}/content", { params: { path: { fileId } }, parseAs: "arrayBuffer", headers: { accept: "*/*" } })
    )
    return { bytes, mediaType, fileName }
  }

  /** One passage of the file (as a chat citation names it); `generation` guards against a re-processed file. */
  chunk(fileId: string, chunkId: string, generation?: number): Promise<FileChunk> {
    return unwrap(
      this.client.GET("/api/assistant/files/{fileId}/chunks/{chunkId}", {
        params: { path: { fileId, chunkId }, query: generation === undefined ? {} : { generation } }
      })
    )
  }

  /**
   * Uploads a file as multipart/form-data and answers it UPLOADED (see waitUntilSettled). Anything within
   * the size limit is accepted; what cannot be read ends FAILED with a failureCode. Outside browsers the
   * body is streamed with progress. Never retried (a POST); a 429 carries Retry-After.
   */
  async upload(options: AssistantFileUploadOptions): Promise<AssistantFile> {
    const { init, sent } = await encodedUpload<UploadPayload>("lore.assistant.files.upload", options)
    return sent(await unwrap(this.client.POST("/api/assistant/files", init)))
  }

  /** Polls the file until processing ends: READY, or FAILED (see failureCode and failureMessage). */
  async waitUntilSettled(fileId: string, options: AssistantFileWaitOptions = {}): Promise<AssistantFile> {
    return pollUntilSettled(`File ${fileId}`, () => this.get(fileId), settled, options)
  }
}
