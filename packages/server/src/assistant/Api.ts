import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Body, Query, Timestamp } from "../domain/Schemas"
import { authenticated, requires } from "../domain/Security"
import { ConversationNotFound, InvalidChatRequest, MessageNotFound, ModelOptionNotFound, WrongMessageRole } from "./Errors"
import { AssistantFileNotFound, AssistantFileNotReady } from "./files/Errors"
import { RateLimitExceeded } from "./RateLimitErrors"

/** The longest question the chat takes, in characters (UTF-16 code units); longer is 400 INVALID_CHAT_REQUEST. */
export const MAX_MESSAGE_CHARS = 8000
/** At most this many knowledge spaces narrow one chat's retrieval. */
export const MAX_CHAT_SPACES = 20

export const MessageRole = Schema.Literal("USER", "ASSISTANT").annotations({ identifier: "MessageRole" })
export const MessageStatus = Schema.Literal("COMPLETE", "INTERRUPTED", "FAILED").annotations({
  identifier: "MessageStatus",
  description: "COMPLETE; INTERRUPTED when the client disconnected mid-answer (the partial text is kept); FAILED when the model call failed"
})
export const Sentiment = Schema.Literal("HELPFUL", "UNHELPFUL").annotations({ identifier: "FeedbackSentiment" })

/**
 * The chat body. Lore's own shape is `{message, conversationId?, knowledgeSpaceIds?, fileIds?, modelActivationId?}`;
 * the `ai` package's default transport sends `{id, messages, trigger, messageId}` and is accepted too (the last
 * user message's text is the question). Unknown fields are ignored, as the contract allows.
 */
export const ChatRequest = Schema.Struct({
  message: Schema.optional(Schema.String).annotations({
    description: `The question (required unless \`messages\` carries it); at most ${MAX_MESSAGE_CHARS} characters`
  }),
  conversationId: Schema.optional(Schema.UUID).annotations({ description: "Continue this conversation (a follow-up); omit to start one" }),
  knowledgeSpaceIds: Schema.optional(Schema.Array(Schema.UUID).pipe(Schema.maxItems(MAX_CHAT_SPACES))).annotations({
    description: "Answer only from these knowledge spaces (among those the caller may read)"
  }),
  fileIds: Schema.optional(Schema.Array(Schema.UUID).pipe(Schema.maxItems(20))).annotations({ description: "The caller's own uploaded files to use as private context" }),
  modelActivationId: Schema.optional(Schema.UUID).annotations({ description: "Answer with this assistant model (see model-options) and keep it for the conversation" }),
  id: Schema.optional(Schema.String).annotations({ description: "The `ai` package's chat id: taken as conversationId when it is one the caller owns" }),
  messages: Schema.optional(Schema.Array(Schema.Unknown)).annotations({ description: "The `ai` package's UI messages; the last user message's text parts are the question" })
}).annotations({ identifier: "ChatRequest" })
export type ChatRequest = typeof ChatRequest.Type

const EventStream = HttpApiSchema.withEncoding(Schema.String, { kind: "Text", contentType: "text/event-stream" }).annotations({
  description: "The AI SDK UI Message Stream protocol v1 (header x-vercel-ai-ui-message-stream: v1): `data: {json}` chunks in the order " +
    "start {messageId = the saved assistant message}, data-conversation {conversationId}, text-start, text-delta..., text-end, " +
    "source-document... (cited passages), data-citations {citations: MessageCitation[]}, finish {messageMetadata: {provider, model}}; " +
    "a failure after the stream started is one `error` chunk; then `data: [DONE]`"
})

export const ConversationSummary = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  lastActivityAt: Timestamp,
  messageCount: Schema.Int,
  createdAt: Timestamp,
  modelActivationId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "ConversationSummary" })

/** One saved UI message part: `type` names it (`step-start`, `text`, `tool-knowledge_search`, ...); the rest is the `ai` package's shape for that type. */
export const MessagePart = Schema.Struct(
  { type: Schema.String },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
).annotations({ identifier: "MessagePart" })

export const Message = Schema.Struct({
  id: Schema.UUID,
  role: MessageRole,
  content: Schema.String,
  sequence: Schema.Int,
  occurredAt: Timestamp,
  status: MessageStatus,
  provider: Schema.NullOr(Schema.String).annotations({ description: "Who answered: LOCAL or the gateway's protocol (assistant messages)" }),
  model: Schema.NullOr(Schema.String),
  feedback: Schema.optional(Sentiment),
  parts: Schema.optional(Schema.Array(MessagePart)).annotations({
    description: "An assistant message's steps as the `ai` package's UI message parts (step-start, tool-<name> with input and output or errorText, text), saved as streamed; `content` is the answer's text"
  })
}).annotations({ identifier: "Message" })

export const MessageCitation = Schema.Struct({
  citationNumber: Schema.Int.annotations({ description: "The [n] the answer used; numbered in order of first use" }),
  kind: Schema.Literal("KNOWLEDGE", "FILE").annotations({ description: "KNOWLEDGE: a passage of the knowledge base. FILE: a chunk of one of the caller's own assistant files (fileIds of the chat)" }),
  citationId: Schema.UUID.annotations({ description: "KNOWLEDGE: what /api/citations/{citationId}/excerpt and /content take. FILE: the file's chunk id" }),
  sourceId: Schema.String.annotations({ description: "The cited source's id: the document version, or the assistant file" }),
  title: Schema.NullOr(Schema.String).annotations({ description: "null when the source is no longer available to the caller" }),
  heading: Schema.NullOr(Schema.String),
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  available: Schema.Boolean.annotations({ description: "Evaluated for the caller at each read: false when the cited source cannot be opened (any more)" }),
  excerptUrl: Schema.String.annotations({ description: "Relative: /api/citations/{id}/excerpt, or /api/assistant/files/{fileId}/chunks/{chunkId}?generation= for a FILE" }),
  contentUrl: Schema.String.annotations({ description: "Relative: /api/citations/{id}/content, or /api/assistant/files/{fileId}/content for a FILE" })
}).annotations({ identifier: "MessageCitation" })

export const MessageFeedback = Schema.Struct({
  messageId: Schema.UUID,
  sentiment: Sentiment,
  comment: Schema.NullOr(Schema.String),
  updatedAt: Timestamp
}).annotations({ identifier: "MessageFeedback" })

export const FeedbackInput = Body({
  sentiment: Sentiment,
  comment: Schema.optional(Schema.String.pipe(Schema.maxLength(2000)))
}).annotations({ identifier: "FeedbackInput" })

export const RenameConversation = Body({
  title: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(200))
}).annotations({ identifier: "RenameConversation" })

export const SetConversationModel = Body({ modelActivationId: Schema.UUID }).annotations({ identifier: "SetConversationModel" })

export const ModelOption = Schema.Struct({
  id: Schema.UUID,
  gatewayLabel: Schema.String,
  provider: Schema.String,
  modelId: Schema.String,
  displayName: Schema.String,
  defaultChoice: Schema.Boolean,
  toolCalling: Schema.Boolean.annotations({ description: "The chat sends this model read-only tools (search, excerpts, assets) in a bounded loop; false for LOCAL, whose planner streams its searches as the same tool parts" })
}).annotations({ identifier: "ModelOption" })

export const ModelOptions = Schema.Struct({
  selectedModelActivationId: Schema.UUID,
  options: Schema.Array(ModelOption)
}).annotations({ identifier: "ModelOptions" })

export const Starter = Schema.Struct({
  id: Schema.String,
  label: Schema.String,
  prompt: Schema.String,
  source: Schema.Literal("CONFIGURED", "DERIVED").annotations({ identifier: "StarterSource", description: "Set by an administrator, or derived from what the caller may read" })
}).annotations({ identifier: "Starter" })

export const StarterInput = Schema.Struct({
  label: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(80)),
  prompt: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(MAX_MESSAGE_CHARS))
}).annotations({ identifier: "StarterInput" })

export const StarterList = Schema.Array(StarterInput).pipe(Schema.maxItems(20)).annotations({ identifier: "StarterList" })

export const KnowledgeSearchToolInput = Body({
  query: Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(1000)),
  knowledgeSpaceIds: Schema.optional(Schema.Array(Schema.UUID).pipe(Schema.maxItems(MAX_CHAT_SPACES))),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 50)))
}).annotations({ identifier: "KnowledgeSearchToolInput" })

export const ToolCitation = Schema.Struct({
  chunkId: Schema.UUID,
  knowledgeAssetId: Schema.UUID,
  sourceRevisionId: Schema.UUID,
  title: Schema.String,
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  heading: Schema.NullOr(Schema.String),
  content: Schema.String
}).annotations({ identifier: "ToolCitation" })

export const KnowledgeSearchToolResult = Schema.Struct({
  traceId: Schema.String.annotations({ description: "Logged with the call, so an answer built on it can be traced" }),
  requestId: Schema.String,
  citations: Schema.Array(ToolCitation)
}).annotations({ identifier: "KnowledgeSearchToolResult" })

const ConversationPath = Schema.Struct({ conversationId: Schema.UUID })
const MessagePath = Schema.Struct({ messageId: Schema.UUID })
const ModelOptionsQuery = Query({ conversationId: Schema.optional(Schema.UUID) })

export class AssistantApi extends HttpApiGroup.make("assistant")
  .add(
    HttpApiEndpoint.post("chat", "/assistant/chat")
      .setPayload(ChatRequest)
      .addSuccess(EventStream)
      .addError(InvalidChatRequest)
      .addError(ConversationNotFound)
      .addError(ModelOptionNotFound)
      .addError(AssistantFileNotFound)
      .addError(AssistantFileNotReady)
      .addError(RateLimitExceeded)
      .pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("listConversations", "/assistant/conversations").addSuccess(Schema.Array(ConversationSummary)).pipe(authenticated))
  .add(
    HttpApiEndpoint.patch("renameConversation", "/assistant/conversations/:conversationId")
      .setPath(ConversationPath).setPayload(RenameConversation).addSuccess(HttpApiSchema.NoContent).addError(ConversationNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("deleteConversation", "/assistant/conversations/:conversationId")
      .setPath(ConversationPath).addSuccess(HttpApiSchema.NoContent).addError(ConversationNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listMessages", "/assistant/conversations/:conversationId/messages")
      .setPath(ConversationPath).addSuccess(Schema.Array(Message)).addError(ConversationNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setConversationModel", "/assistant/conversations/:conversationId/model")
      .setPath(ConversationPath).setPayload(SetConversationModel).addSuccess(HttpApiSchema.NoContent)
      .addError(ConversationNotFound).addError(ModelOptionNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listMessageCitations", "/assistant/messages/:messageId/citations")
      .setPath(MessagePath).addSuccess(Schema.Array(MessageCitation)).addError(MessageNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setMessageFeedback", "/assistant/messages/:messageId/feedback")
      .setPath(MessagePath).setPayload(FeedbackInput).addSuccess(MessageFeedback).addError(MessageNotFound).addError(WrongMessageRole).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("deleteMessageFeedback", "/assistant/messages/:messageId/feedback")
      .setPath(MessagePath).addSuccess(HttpApiSchema.NoContent).addError(MessageNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getModelOptions", "/assistant/model-options")
      .setUrlParams(ModelOptionsQuery).addSuccess(ModelOptions).addError(ConversationNotFound).pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("listStarters", "/assistant/starters").addSuccess(Schema.Array(Starter)).pipe(authenticated))
  .add(
    HttpApiEndpoint.post("knowledgeSearchTool", "/assistant/tools/knowledge-search")
      .setPayload(KnowledgeSearchToolInput).addSuccess(KnowledgeSearchToolResult).pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Assistant")
  .annotate(OpenApi.Description, "Streamed, cited chat over what the caller may read; conversations (private to their owner), feedback, model choice, starters, tools") {}

export class AssistantAdminApi extends HttpApiGroup.make("adminAssistant")
  .add(HttpApiEndpoint.get("listConfiguredStarters", "/admin/assistant/starters").addSuccess(Schema.Array(Starter)).pipe(requires("ai.manage")))
  .add(
    HttpApiEndpoint.put("setConfiguredStarters", "/admin/assistant/starters")
      .setPayload(StarterList).addSuccess(Schema.Array(Starter)).pipe(requires("ai.manage"))
  )
  .annotate(OpenApi.Title, "Administration: assistant")
  .annotate(OpenApi.Description, "The conversation starters every member of the organization is offered (replaced as a whole)") {}
