import type { LoreFetchClient } from "../fetchClient"
import { download, type DownloadedFile } from "../download"
import { type UploadProgress, type UploadSource } from "../multipart"
import { paginate } from "../paginate"
import { toQuery } from "../query"
import { encodedUpload, pollUntilSettled } from "../upload"
import { unwrap } from "../response"
import type { Classification, Source, SourceDeletion, SourcePage } from "../generated/openapi"
import type { Operation, QueryOf } from "../operations"

export interface UploadOptions {
  /** The space to add the document to; the caller needs contributor access to it. */
  readonly knowledgeSpaceId: string
  /** Default CONFIDENTIAL; never above the caller's clearance. */
  readonly classification?: Classification | undefined
  /** Default: from the file name. A new file with the title of an existing one adds a version. */
  readonly title?: string | undefined
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

export interface WaitOptions {
  /** Between two polls (default 1000 ms). */
  readonly intervalMs?: number | undefined
  /** Give up after this long with a LoreApiError of code WAIT_TIMEOUT (default 10 minutes). */
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** Called with the source after each poll whose status differs from the previous one (and after the first). */
  readonly onStatus?: ((source: Source) => void) | undefined
}

/** Filters of `lore.sources.list`: space, classification, status, `q` (titles and file names), cursor, pageSize 1..200 (default 25). */
export type SourceQuery = QueryOf<"listSources">

type UploadPayload = NonNullable<Operation<"uploadSource">["requestBody"]>["content"]["multipart/form-data"]

const settled = (status: string) => status !== "PROCESSING"


/** Uploaded documents: upload, follow ingestion, list, download, delete. */
export class SourcesArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** One page of the sources the caller may see, newest first, with `total` and `statusCounts`. */
  async list(query: SourceQuery = {}): Promise<SourcePage> {
    return unwrap(this.client.GET("/api/sources", { params: { query: toQuery(query) } }))
  }

  /** Every matching source, fetching pages lazily (pageSize up to 200 per request). */
  all(query: Omit<SourceQuery, "cursor"> = {}): AsyncGenerator<Source, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }))
  }

  get(sourceId: string): Promise<Source> {
    return unwrap(this.client.GET("/api/sources/{sourceId}", { params: { path: { sourceId } } }))
  }

  /** Hides the source from search at once; a job purges its chunks (status PENDING until then). */
  remove(sourceId: string): Promise<SourceDeletion> {
    return unwrap(this.client.DELETE("/api/sources/{sourceId}", { params: { path: { sourceId } } }))
  }

  /** The original bytes, media type and file name. */
  async content(sourceId: string): Promise<DownloadedFile> {
    const { bytes, mediaType, fileName } = await download(
      this.client.GET("/api/sources/{sourceId}/content", { params: { path: { sourceId } }, parseAs: "arrayBuffer", headers: { accept: "*/*" } })
    )
    return { bytes, mediaType, fileName }
  }

  /**
   * Uploads a document as multipart/form-data and answers the new Source (status PROCESSING; see
   * waitUntilSettled). Outside browsers the body is streamed, so a large file is never held in memory
   * and onProgress follows the bytes as they are sent; browsers (which stream request bodies only over
   * HTTP/2) send one Blob and report progress when it is done. Never retried: an upload is a POST.
   */
  async upload(options: UploadOptions): Promise<Source> {
    const { init, sent } = await encodedUpload<UploadPayload>("lore.sources.upload", options)
    const query = { knowledgeSpaceId: options.knowledgeSpaceId, classification: options.classification, title: options.title }
    return sent(await unwrap(this.client.POST("/api/sources", { params: { query }, ...init })))
  }

  /**
   * Polls the source until ingestion ends: READY, or ATTENTION (see failureCode and failureMessage);
   * DELETING too, should someone delete it meanwhile. Rejects with the signal's reason on abort.
   */
  async waitUntilSettled(sourceId: string, options: WaitOptions = {}): Promise<Source> {
    return pollUntilSettled(`Source ${sourceId}`, () => this.get(sourceId), settled, options)
  }
}

