import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { one, row, rows, Timestamp } from "../../db/Rows"

/** A binding as stored: which knowledge source is evidence for which conversation (the source's state is the knowledge area's). */
export const BindingRow = Schema.Struct({
  id: Schema.String,
  conversationId: Schema.String,
  sourceId: Schema.String,
  knowledgeAssetId: Schema.String,
  knowledgeSpaceId: Schema.String,
  title: Schema.String,
  fileName: Schema.String,
  createdAt: Timestamp
})
export type BindingRow = typeof BindingRow.Type

export interface NewBinding {
  readonly organizationId: string
  readonly conversationId: string
  readonly boundBy: string
  readonly sourceId: string
  readonly knowledgeAssetId: string
  readonly knowledgeSpaceId: string
  readonly title: string
  readonly fileName: string
}

const columns = (prefix: string) =>
  ["id", "conversation_id", "source_id", "knowledge_asset_id", "knowledge_space_id", "title", "file_name", "created_at"].map((c) => prefix + c).join(", ")

/** SQL for evidence bindings. Every read joins the conversation's owner: bindings are as private as their conversation. */
export class EvidenceRepo extends Effect.Service<EvidenceRepo>()("lore/AssistantEvidenceRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const selected = sql.literal(columns("b."))

    return {
      /** Binds a source to a conversation; binding the same source again answers the existing binding. */
      bind: one("assistantEvidence.bind", BindingRow, (binding: NewBinding) => sql`
        INSERT INTO assistant_evidence_bindings (organization_id, conversation_id, bound_by, source_id, knowledge_asset_id, knowledge_space_id, title, file_name)
        VALUES (${binding.organizationId}, ${binding.conversationId}, ${binding.boundBy}, ${binding.sourceId}, ${binding.knowledgeAssetId},
          ${binding.knowledgeSpaceId}, ${binding.title}, ${binding.fileName})
        ON CONFLICT (conversation_id, source_id) DO UPDATE SET file_name = EXCLUDED.file_name
        RETURNING ${sql.literal(columns(""))}`),

      /** The conversation's bindings, oldest first, when the caller owns the conversation (else none). */
      inConversation: rows("assistantEvidence.inConversation", BindingRow, (ownerUserId: string, conversationId: string) => sql`
        SELECT ${selected} FROM assistant_evidence_bindings b JOIN assistant_conversations c ON c.id = b.conversation_id
        WHERE b.conversation_id = ${conversationId} AND c.owner_user_id = ${ownerUserId}
        ORDER BY b.created_at, b.id`),

      /** One binding of a conversation the caller owns. */
      owned: row("assistantEvidence.owned", BindingRow, (ownerUserId: string, conversationId: string, bindingId: string) => sql`
        SELECT ${selected} FROM assistant_evidence_bindings b JOIN assistant_conversations c ON c.id = b.conversation_id
        WHERE b.id = ${bindingId} AND b.conversation_id = ${conversationId} AND c.owner_user_id = ${ownerUserId}`)
    }
  })
}) {}
