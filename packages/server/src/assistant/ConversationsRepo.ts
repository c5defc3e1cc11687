import { SqlClient, type Statement } from "@effect/sql"
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
  feedback: Schema.NullOr(Schema.Literal("HELPFUL", "UNHELPFUL")),
  /** The saved UI message parts as JSON text (assistant messages with steps), or null. */
  parts: Schema.NullOr(Schema.String)
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

/** A follow-up's token, conversation, the messages before its question and the sources bound to it as evidence. */
export const FollowUpRow = Schema.Struct({
  taken: Schema.Boolean,
  id: Schema.NullOr(Schema.String),
  organizationId: Schema.NullOr(Schema.String),
  ownerUserId: Schema.NullOr(Schema.String),
  title: Schema.NullOr(Schema.String),
  modelActivationId: Schema.NullOr(Schema.String),
  createdAt: Schema.NullOr(Timestamp),
  lastActivityAt: Schema.NullOr(Timestamp),
  history: Schema.Array(Schema.Struct({ role: Schema.Literal("USER", "ASSISTANT"), content: Schema.String })),
  evidenceSourceIds: Schema.Array(Schema.String)
})
export type FollowUpRow = typeof FollowUpRow.Type
export type HistoryMessage = FollowUpRow["history"][number]

/** A citation as the answer's save reads it (jsonb_to_recordset: the column names). */
const citationRecord = (citation: CitationRow) => ({
  citation_number: citation.citationNumber, kind: citation.kind, citation_id: citation.citationId, source_id: citation.sourceId,
  knowledge_asset_id: citation.knowledgeAssetId, file_generation: citation.fileGeneration, title: citation.title, heading: citation.heading,
  start_page: citation.startPage, end_page: citation.endPage
})
const OwnedMessage = Schema.Struct({ id: Schema.String, role: Schema.String })

export interface NewAssistantMessage {
  readonly id: string
  readonly conversationId: string
  readonly content: string
  readonly status: "COMPLETE" | "INTERRUPTED" | "FAILED"
  readonly provider: string | null
  readonly model: string | null
  readonly citations: ReadonlyArray<CitationRow>
  /** The UI message parts streamed (steps, tool calls, texts), or null for an answer without steps. */
  readonly parts: ReadonlyArray<unknown> | null
}

/** SQL for conversations, their messages, the citations of answers and feedback. Owner checks are in every statement. */
export class ConversationsRepo extends Effect.Service<ConversationsRepo>()("lore/ConversationsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

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
        SELECT m.id, m.conversation_id, m.sequence, m.role, m.content, m.status, m.provider, m.model, m.created_at, f.sentiment AS feedback, m.parts
        FROM assistant_messages m LEFT JOIN assistant_message_feedback f ON f.message_id = m.id
        WHERE m.conversation_id = ${conversationId} ORDER BY m.sequence`),

      /** The message's id when it belongs to a conversation the caller owns. */
      ownedMessage: row("assistant.ownedMessage", OwnedMessage, (ownerUserId: string, messageId: string) => sql`
        SELECT m.id, m.role FROM assistant_messages m JOIN assistant_conversations c ON c.id = m.conversation_id
        WHERE m.id = ${messageId} AND c.owner_user_id = ${ownerUserId}`),

      /**
       * A follow-up, in one statement: the caller's rate-limit token (`token`, RateLimits.tokenStatement), and only
       * when one was taken, the conversation (when the caller owns it) touched, its next sequence taken under its
       * row lock, the question appended with it, the model choice stored when one is sent; answered with the
       * conversation's last `historyLimit` messages before the question (oldest first) and the source ids bound to
       * it as evidence. Always one row: `taken` false, refused; `id` null, not the caller's conversation (or none).
       */
      continueWithQuestion: one("assistant.continueWithQuestion", FollowUpRow, (token: Statement.Fragment, ownerUserId: string, id: string, modelActivationId: string | null, question: string, historyLimit: number) => sql`
        WITH token AS (${token}), conversation AS (
          UPDATE assistant_conversations SET last_sequence = last_sequence + 1, last_activity_at = now(),
            model_activation_id = coalesce(${modelActivationId}::uuid, model_activation_id)
          WHERE id = ${id} AND owner_user_id = ${ownerUserId} AND EXISTS (SELECT 1 FROM token)
          RETURNING id, organization_id, owner_user_id, title, model_activation_id, created_at, last_activity_at, last_sequence
        ), question AS (
          INSERT INTO assistant_messages (conversation_id, sequence, role, content, status)
          SELECT id, last_sequence, 'USER', ${question}, 'COMPLETE' FROM conversation
        )
        SELECT EXISTS (SELECT 1 FROM token) AS taken, c.id, c.organization_id, c.owner_user_id, c.title, c.model_activation_id, c.created_at, c.last_activity_at,
          coalesce((
            SELECT json_agg(json_build_object('role', recent.role, 'content', recent.content) ORDER BY recent.sequence)
            FROM (SELECT m.role, m.content, m.sequence FROM assistant_messages m WHERE m.conversation_id = c.id ORDER BY m.sequence DESC LIMIT ${historyLimit}) recent
          ), '[]'::json) AS history,
          coalesce((SELECT array_agg(b.source_id::text ORDER BY b.created_at, b.id) FROM assistant_evidence_bindings b WHERE b.conversation_id = c.id), '{}') AS evidence_source_ids
        FROM (VALUES (1)) AS answer (one) LEFT JOIN conversation c ON true`),

      /**
       * A new conversation (its id chosen by the caller) with its first question, in one statement with the caller's
       * rate-limit token (`token`, RateLimits.tokenStatement); undefined when none was taken (nothing was written).
       */
      createWithQuestion: row("assistant.createConversationWithQuestion", ConversationRow, (token: Statement.Fragment, id: string, organizationId: string, ownerUserId: string, title: string, modelActivationId: string | null, question: string) => sql`
        WITH token AS (${token}), conversation AS (
          INSERT INTO assistant_conversations (id, organization_id, owner_user_id, title, model_activation_id, last_sequence)
          SELECT ${id}, ${organizationId}, ${ownerUserId}, ${title}, ${modelActivationId}::uuid, 1 WHERE EXISTS (SELECT 1 FROM token)
          RETURNING id, organization_id, owner_user_id, title, model_activation_id, created_at, last_activity_at
        ), question AS (
          INSERT INTO assistant_messages (conversation_id, sequence, role, content, status)
          SELECT id, 1, 'USER', ${question}, 'COMPLETE' FROM conversation
        )
        SELECT id, organization_id, owner_user_id, title, model_activation_id, created_at, last_activity_at FROM conversation`),

      /**
       * The answer with its citations, in one statement (no transaction: it holds a connection for one round trip):
       * the conversation's next sequence under its row lock, the message, every citation. A conversation deleted
       * (or not the caller's) while its answer streamed keeps nothing; answers whether the answer was saved.
       * `alsoWrite`, a data-modifying statement that is written with it whatever happens (the chat's usage rows).
       */
      appendAssistantMessage: affected((ownerUserId: string, message: NewAssistantMessage, alsoWrite: Statement.Fragment = sql`SELECT 1`) => sql`
        WITH also AS (${alsoWrite}), conversation AS (
          UPDATE assistant_conversations SET last_sequence = last_sequence + 1, last_activity_at = now()
          WHERE id = ${message.conversationId} AND owner_user_id = ${ownerUserId}
          RETURNING id, last_sequence
        ), answer AS (
          INSERT INTO assistant_messages (id, conversation_id, sequence, role, content, status, provider, model, parts)
          SELECT ${message.id}, id, last_sequence, 'ASSISTANT', ${message.content}, ${message.status}, ${message.provider}, ${message.model},
            ${message.parts === null ? null : JSON.stringify(message.parts)}
          FROM conversation
          RETURNING id
        ), cited AS (
          INSERT INTO assistant_message_citations (message_id, citation_number, kind, citation_id, source_id, knowledge_asset_id, file_generation, title, heading, start_page, end_page)
          SELECT answer.id, c.citation_number, c.kind, c.citation_id, c.source_id, c.knowledge_asset_id, c.file_generation, c.title, c.heading, c.start_page, c.end_page
          FROM answer CROSS JOIN jsonb_to_recordset(${JSON.stringify(message.citations.map(citationRecord))}::jsonb) AS c(
            citation_number integer, kind text, citation_id uuid, source_id uuid, knowledge_asset_id uuid, file_generation integer, title text, heading text, start_page integer, end_page integer)
        )
        SELECT id FROM answer`),

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
