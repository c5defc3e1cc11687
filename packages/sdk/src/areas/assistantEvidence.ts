import type { Middleware } from "openapi-fetch"
import type { LoreFetchClient } from "../fetchClient"
import { streamedBodies } from "../credentials"
import { LoreApiError } from "../errors"
import { multipartBody, type UploadProgress, type UploadSource } from "../multipart"
import { unwrap } from "../response"
import { isBrowser, sleep } from "../runtime"
import type { Classification, EvidenceBinding } from "../generated/openapi"
import type { Operation } from "../operations"

export interface EvidenceUploadOptions {
  /** The caller's conversation the document is evidence for. */
  readonly conversationId: string
  /** The knowledge space the document is ingested into; the caller needs contributor access to it. */
  readonly knowledgeSpaceId: string
  /** Default CONFIDENTIAL; never above the caller's clearance. */
  readonly classification?: Classification | undefined
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

export interface EvidenceWaitOptions {
  /** Between two polls (default 1000 ms). */
  readonly intervalMs?: number | undefined
  /** Give up after this long with a LoreApiError of code WAIT_TIMEOUT (default 10 minutes). */
  readonly timeoutMs?: number | undefined
  readonly signal?: AbortSignal | undefined
  /** Called with the binding after each poll whose status differs from the previous one (and after the first). */
  readonly onStatus?: ((binding: EvidenceBinding) => void) | undefined
}

type UploadPayload = NonNullable<Operation<"uploadEvidence">["requestBody"]>["content"]["multipart/form-data"]

/** Processing is over: READY, FAILED, or the source is out of the caller's reach (UNAVAILABLE). */
const settled = (status: EvidenceBinding["status"]) => status !== "PROCESSING"

const markStreamed: Middleware = {
  onRequest: ({ request }) => {
    streamedBodies.add(request)
  }
}

/**
 * Evidence bound to a conversation (`lore.assistant.evidence`): the document is ingested as a knowledge
 * source of the space (the space's access rules govern it) and that conversation's answers retrieve it.
 */
export class AssistantEvidenceArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** The conversation's evidence, oldest first. */
  list(conversationId: string): Promise<ReadonlyArray<EvidenceBinding>> {
    return unwrap(this.client.GET("/api/assistant/conversations/{conversationId}/evidence", { params: { path: { conversationId } } }))
  }

  get(conversationId: string, bindingId: string): Promise<EvidenceBinding> {
    return unwrap(
      this.client.GET("/api/assistant/conversations/{conversationId}/evidence/{bindingId}", { params: { path: { conversationId, bindingId } } })
    )
  }

  /**
   * Uploads a document as evidence of a conversation and answers the binding with its first status
   * (PROCESSING; see waitUntilSettled). Outside browsers the body is streamed with progress. Never retried.
   */
  async upload(options: EvidenceUploadOptions): Promise<EvidenceBinding> {
    const fileName = options.fileName ?? (typeof File !== "undefined" && options.file instanceof File ? options.file.name : undefined)
    if (!fileName) throw LoreApiError.invalidArgument("lore.assistant.evidence.upload: `fileName` is required unless `file` is a File")
    const streaming = !isBrowser()
    const { body, contentType, total } = await multipartBody({
      field: "file",
      source: options.file,
      fileName,
      mediaType: options.mediaType,
      size: options.size,
      onProgress: options.onProgress,
      signal: options.signal,
      streaming
    })
    const query = { conversationId: options.conversationId, knowledgeSpaceId: options.knowledgeSpaceId, classification: options.classification }
    const binding = await unwrap(
      this.client.POST("/api/assistant/evidence", {
        params: { query },
        // The body is already encoded: openapi-fetch must pass it through, with our boundary.
        body: body as unknown as UploadPayload,
        bodySerializer: (encoded: UploadPayload) => encoded,
        headers: { "content-type": contentType },
        signal: options.signal,
        ...(streaming ? { duplex: "half" as const, middleware: [markStreamed] } : {})
      })
    )
    if (!streaming && total !== undefined) options.onProgress?.(total, total)
    return binding
  }

  /** Polls the binding until its document's ingestion ends: READY, or FAILED (see failureCode). */
  async waitUntilSettled(conversationId: string, bindingId: string, options: EvidenceWaitOptions = {}): Promise<EvidenceBinding> {
    const intervalMs = options.intervalMs ?? 1000
    const timeoutMs = options.timeoutMs ?? 10 * 60_000
    const deadline = Date.now() + timeoutMs
    let previous: string | undefined
    for (;;) {
      options.signal?.throwIfAborted()
      const binding = await this.get(conversationId, bindingId)
      if (binding.status !== previous) options.onStatus?.(binding)
      previous = binding.status
      if (settled(binding.status)) return binding
      const left = deadline - Date.now()
      if (left <= 0) throw LoreApiError.client("WAIT_TIMEOUT", "Timeout", `Evidence ${bindingId} was still ${binding.status} after ${timeoutMs} ms`)
      await sleep(Math.min(intervalMs, left), options.signal)
    }
  }
}
