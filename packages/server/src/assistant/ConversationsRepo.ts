import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, Count, exec, one, row, rows, Timestamp } from "../db/Rows"

export const ConversationRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  ownerUserId: Schema.String,
  title: Schema.String,
  modelActivationId: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  lastActivityAt: Timestamp
})
export type ConversationRow = typeof ConversationRow.Type

export const ConversationSummaryRow = Schema.Struct({
  ...ConversationRow.fields,
  messageCount: Count
})

export const MessageRow = Schema.Struct({
  id: Schema.String,
  conversationId: Schema.String,
  sequence: Schema.Number,
  role: Schema.Literal("USER", "ASSISTANT"),
  content: Schema.String,
  status: Schema.Literal("COMPLETE", "INTERRUPTED", "FAILED"),
  provider: Schema.NullOr(Schema.String),
  model: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  feedback: Schema.NullOr(Schema.Literal("HELPFUL", "UNHELPFUL"))
})
export type MessageRow = typeof MessageRow.Type

/** What an answer cites: a knowledge passage, or a chunk of the caller's own assistant file. */
export const CitationKind = Schema.Literal("KNOWLEDGE", "FILE")
export type CitationKind = typeof CitationKind.Type

/**
 * A saved citation. KNOWLEDGE: citationId is the knowledge chunk, sourceId the document version. FILE:
 * citationId is the file's chunk, sourceId the file, fileGeneration the processing it was cited at.
 */
export const CitationRow = Schema.Struct({
  citationNumber: Schema.Number,
  kind: CitationKind,
  citationId: Schema.String,
  sourceId: Schema.String,
  knowledgeAssetId: Schema.NullOr(Schema.String),
  fileGeneration: Schema.NullOr(Schema.Number),
  title: Schema.String,
  heading: Schema.NullOr(Schema.String),
  startPage: Schema.NullOr(Schema.Number),
  endPage: Schema.NullOr(Schema.Number)
})
export type CitationRow = typeof CitationRow.Type

export const FeedbackRow = Schema.Struct({
  messageId: Schema.String,
  sentiment: Schema.Literal("HELPFUL", "UNHELPFUL"),
  comment: Schema.NullOr(Schema.String),
  updatedAt: Timestamp
})

const Sequence = Schema.Struct({ next: Count })
const Id = Schema.Struct({ id: Schema.String })

export interface NewAssistantMessage {
  readonly id: string
  readonly conversationId: string
  readonly content: string
  readonly status: "COMPLETE" | "INTERRUPTED" | "FAILED"
  readonly provider: string | null
  readonly model: string | null
  readonly citations: ReadonlyArray<CitationRow>
}

/** SQL for conversations, their messages, the citations of answers and feedback. Owner checks are in every statement. */
export class ConversationsRepo extends Effect.Service<ConversationsRepo>()("lore/ConversationsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const nextSequence = row("assistant.nextSequence", Sequence, (conversationId: string) => sql`
      SELECT coalesce(max(sequence), 0) + 1 AS next FROM assistant_messages WHERE conversation_id = ${conversationId}`)

    return {
      create: one("assistant.createConversation", ConversationRow, (organizationId: string, ownerUserId: string, title: string, modelActivationId: string | null) => sql`
        INSERT INTO assistant_conversations (organization_id, owner_user_id, title, model_activation_id)
        VALUES (${organizationId}, ${ownerUserId}, ${title}, ${modelActivationId})
        RETURNING id, organization_id, owner_user_id, title, model_activation_id, created_at, last_activity_at`),

      /** The conversation when the caller owns it; FOR UPDATE serializes appends to one conversation. */
      owned: row("assistant.ownedConversation", ConversationRow, (ownerUserId: string, id: string, lock = false) => sql`
        SELECT id, organization_id, owner_user_id, title, model_activation_id, created_at, last_activity_at
        FROM assistant_conversations WHERE id = ${id} AND owner_user_id = ${ownerUserId} ${lock ? sql`FOR UPDATE` : sql``}`),

      list: rows("assistant.listConversations", ConversationSummaryRow, (ownerUserId: string) => sql`
        SELECT c.id, c.organization_id, c.owner_user_id, c.title, c.model_activation_id, c.created_at, c.last_activity_at,
          (SELECT count(*) FROM assistant_messages m WHERE m.conversation_id = c.id)::int AS message_count
        FROM assistant_conversations c WHERE c.owner_user_id = ${ownerUserId}
        ORDER BY c.last_activity_at DESC, c.id DESC`),

      rename: affected((ownerUserId: string, id: string, title: string) => sql`
        UPDATE assistant_conversations SET title = ${title} WHERE id = ${id} AND owner_user_id = ${ownerUserId} RETURNING id`),

      setModel: affected((ownerUserId: string, id: string, modelActivationId: string) => sql`
        UPDATE assistant_conversations SET model_activation_id = ${modelActivationId} WHERE id = ${id} AND owner_user_id = ${ownerUserId} RETURNING id`),

      remove: affected((ownerUserId: string, id: string) => sql`
        DELETE FROM assistant_conversations WHERE id = ${id} AND owner_user_id = ${ownerUserId} RETURNING id`),

      messages: rows("assistant.messages", MessageRow, (conversationId: string) => sql`
        SELECT m.id, m.conversation_id, m.sequence, m.role, m.content, m.status, m.provider, m.model, m.created_at, f.sentiment AS feedback
        FROM assistant_messages m LEFT JOIN assistant_message_feedback f ON f.message_id = m.id
        WHERE m.conversation_id = ${conversationId} ORDER BY m.sequence`),

      /** The last turns of a conversation, oldest first: the context of a follow-up. */
      recentMessages: rows("assistant.recentMessages", MessageRow, (conversationId: string, limit: number) => sql`
        SELECT * FROM (
          SELECT m.id, m.conversation_id, m.sequence, m.role, m.content, m.status, m.provider, m.model, m.created_at, NULL::text AS feedback
          FROM assistant_messages m WHERE m.conversation_id = ${conversationId} ORDER BY m.sequence DESC LIMIT ${limit}
        ) recent ORDER BY sequence`),

      /** The message's id when it belongs to a conversation the caller owns. */
      ownedMessage: row("assistant.ownedMessage", Id, (ownerUserId: string, messageId: string) => sql`
        SELECT m.id FROM assistant_messages m JOIN assistant_conversations c ON c.id = m.conversation_id
        WHERE m.id = ${messageId} AND c.owner_user_id = ${ownerUserId}`),

      appendUserMessage: (conversationId: string, content: string) =>
        Effect.gen(function* () {
          const sequence = (yield* nextSequence(conversationId))!.next
          yield* exec(() => sql`
            INSERT INTO assistant_messages (conversation_id, sequence, role, content, status)
            VALUES (${conversationId}, ${sequence}, 'USER', ${content}, 'COMPLETE')`)()
          yield* exec(() => sql`UPDATE assistant_conversations SET last_activity_at = now() WHERE id = ${conversationId}`)()
        }),

      appendAssistantMessage: (message: NewAssistantMessage) =>
        Effect.gen(function* () {
          const sequence = (yield* nextSequence(message.conversationId))!.next
          yield* exec(() => sql`
            INSERT INTO assistant_messages (id, conversation_id, sequence, role, content, status, provider, model)
            VALUES (${message.id}, ${message.conversationId}, ${sequence}, 'ASSISTANT', ${message.content}, ${message.status}, ${message.provider}, ${message.model})`)()
          for (const citation of message.citations) {
            yield* exec(() => sql`
              INSERT INTO assistant_message_citations (message_id, citation_number, kind, citation_id, source_id, knowledge_asset_id, file_generation, title, heading, start_page, end_page)
              VALUES (${message.id}, ${citation.citationNumber}, ${citation.kind}, ${citation.citationId}, ${citation.sourceId}, ${citation.knowledgeAssetId}, ${citation.fileGeneration},
                ${citation.title}, ${citation.heading}, ${citation.startPage}, ${citation.endPage})`)()
          }
          yield* exec(() => sql`UPDATE assistant_conversations SET last_activity_at = now() WHERE id = ${message.conversationId}`)()
        }),

      /** A saved answer whose stream the client left before its end: what was saved stays, the status says it was cut. */
      markInterrupted: exec((messageId: string) => sql`UPDATE assistant_messages SET status = 'INTERRUPTED' WHERE id = ${messageId} AND status = 'COMPLETE'`),

      citations: rows("assistant.citations", CitationRow, (messageId: string) => sql`
        SELECT citation_number, kind, citation_id, source_id, knowledge_asset_id, file_generation, title, heading, start_page, end_page
        FROM assistant_message_citations WHERE message_id = ${messageId} ORDER BY citation_number`),

      setFeedback: one("assistant.setFeedback", FeedbackRow, (messageId: string, userId: string, sentiment: string, comment: string | null) => sql`
        INSERT INTO assistant_message_feedback (message_id, user_id, sentiment, comment) VALUES (${messageId}, ${userId}, ${sentiment}, ${comment})
        ON CONFLICT (message_id) DO UPDATE SET sentiment = EXCLUDED.sentiment, comment = EXCLUDED.comment, updated_at = now(), user_id = EXCLUDED.user_id
        RETURNING message_id, sentiment, comment, updated_at`),

      deleteFeedback: exec((messageId: string) => sql`DELETE FROM assistant_message_feedback WHERE message_id = ${messageId}`)
    }
  })
}) {}
