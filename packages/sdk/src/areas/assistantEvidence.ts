import type { LoreFetchClient } from "../fetchClient"
import { type UploadProgress, type UploadSource } from "../multipart"
import { encodedUpload, pollUntilSettled } from "../upload"
import { unwrap } from "../response"
import type { Classification, EvidenceBinding } from "../generated/openapi"
import type { Operation } from "../operations"

export interface EvidenceUploadOptions {
  /** The caller's conversation the document is evidence for; without it, a new conversation titled with the file name (the binding's conversationId). */
  readonly conversationId?: string | undefined
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
    const { init, sent } = await encodedUpload<UploadPayload>("lore.assistant.evidence.upload", options)
    const query = { ...(options.conversationId ? { conversationId: options.conversationId } : {}), knowledgeSpaceId: options.knowledgeSpaceId, classification: options.classification }
    return sent(await unwrap(this.client.POST("/api/assistant/evidence", { params: { query }, ...init })))
  }

  /** Polls the binding until its document's ingestion ends: READY, or FAILED (see failureCode). */
  async waitUntilSettled(conversationId: string, bindingId: string, options: EvidenceWaitOptions = {}): Promise<EvidenceBinding> {
    return pollUntilSettled(`Evidence ${bindingId}`, () => this.get(conversationId, bindingId), settled, options)
  }
}
