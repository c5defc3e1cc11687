import type { LoreFetchClient } from "../fetchClient"
import { ChatStream } from "../chat"
import { AssistantEvidenceArea } from "./assistantEvidence"
import { AssistantFilesArea } from "./assistantFiles"
import { LoreApiError } from "../errors"
import { unwrap, unwrapEmpty } from "../response"
import type {
  ChatRequest,
  ConversationSummary,
  FeedbackSentiment,
  KnowledgeSearchToolInput,
  KnowledgeSearchToolResult,
  Message,
  MessageCitation,
  MessageFeedback,
  ModelOptions,
  Starter
} from "../generated/openapi"

/** A question: `message` (at most 8000 characters), optionally a `conversationId` to follow up, spaces, files, a model. */
export type ChatInput = Pick<ChatRequest, "message" | "conversationId" | "knowledgeSpaceIds" | "fileIds" | "modelActivationId"> & { readonly message: string }

/** The assistant: streamed, cited answers over what the caller may read; conversations private to their owner. */
export class AssistantArea {
  /** Private chat attachments. */
  readonly files: AssistantFilesArea
  /** Documents bound to a conversation as evidence. */
  readonly evidence: AssistantEvidenceArea

  constructor(private readonly client: LoreFetchClient) {
    this.files = new AssistantFilesArea(client)
    this.evidence = new AssistantEvidenceArea(client)
  }

  /**
   * Asks a question. Iterate the result for the typed stream parts as they arrive, or `await
   * lore.assistant.chat({...}).final()` for the text and citations. `signal` aborts the answer (the server
   * saves what was written as INTERRUPTED).
   */
  chat(input: ChatInput, options: { readonly signal?: AbortSignal } = {}): ChatStream {
    return new ChatStream(async (stream) => {
      const { data, error, response } = await this.client.POST("/api/assistant/chat", {
        body: input,
        parseAs: "stream",
        headers: { accept: "text/event-stream, application/problem+json" },
        ...(options.signal ? { signal: options.signal } : {})
      })
      if (!response.ok) throw LoreApiError.fromBody(response, error)
      stream.requestId = response.headers.get("x-request-id") ?? undefined
      if (!data) throw LoreApiError.client("INVALID_RESPONSE", "Invalid Response", "The chat answer has no body")
      return data as ReadableStream<Uint8Array>
    })
  }

  /** The caller's conversations, most recent activity first. */
  conversations(): Promise<Array<ConversationSummary>> {
    return unwrap(this.client.GET("/api/assistant/conversations"))
  }

  messages(conversationId: string): Promise<Array<Message>> {
    return unwrap(this.client.GET("/api/assistant/conversations/{conversationId}/messages", { params: { path: { conversationId } } }))
  }

  renameConversation(conversationId: string, title: string): Promise<void> {
    return unwrapEmpty(this.client.PATCH("/api/assistant/conversations/{conversationId}", { params: { path: { conversationId } }, body: { title } }))
  }

  deleteConversation(conversationId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/assistant/conversations/{conversationId}", { params: { path: { conversationId } } }))
  }

  /** The models the caller may choose, and the one selected (for a conversation, or the default). */
  modelOptions(conversationId?: string): Promise<ModelOptions> {
    return unwrap(this.client.GET("/api/assistant/model-options", { params: { query: conversationId ? { conversationId } : {} } }))
  }

  setConversationModel(conversationId: string, modelActivationId: string): Promise<void> {
    return unwrapEmpty(this.client.PUT("/api/assistant/conversations/{conversationId}/model", { params: { path: { conversationId } }, body: { modelActivationId } }))
  }

  /** An answer's citations, availability evaluated now (an unavailable one has `title: null`). */
  citations(messageId: string): Promise<Array<MessageCitation>> {
    return unwrap(this.client.GET("/api/assistant/messages/{messageId}/citations", { params: { path: { messageId } } }))
  }

  setFeedback(messageId: string, sentiment: FeedbackSentiment, comment?: string): Promise<MessageFeedback> {
    return unwrap(this.client.PUT("/api/assistant/messages/{messageId}/feedback", {
      params: { path: { messageId } }, body: { sentiment, ...(comment !== undefined ? { comment } : {}) }
    }))
  }

  deleteFeedback(messageId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/assistant/messages/{messageId}/feedback", { params: { path: { messageId } } }))
  }

  starters(): Promise<Array<Starter>> {
    return unwrap(this.client.GET("/api/assistant/starters"))
  }

  /** Passages for a query as tool citations, with the trace id the server logged. */
  knowledgeSearch(input: KnowledgeSearchToolInput): Promise<KnowledgeSearchToolResult> {
    return unwrap(this.client.POST("/api/assistant/tools/knowledge-search", { body: input }))
  }
}
