import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * A conversation counts its messages (`last_sequence`, the sequence of its last message), so a question or an
 * answer is appended in ONE statement without a transaction: `UPDATE ... SET last_sequence = last_sequence + 1
 * RETURNING` hands out the next sequence under the row lock, re-read after a concurrent append (a max(sequence)
 * inside the same statement would read its snapshot and collide). Issue 32 point 6: a chat's statements.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE assistant_conversations ADD COLUMN last_sequence integer NOT NULL DEFAULT 0`
  yield* sql`
    UPDATE assistant_conversations c SET last_sequence = m.last
    FROM (SELECT conversation_id, max(sequence) AS last FROM assistant_messages GROUP BY conversation_id) m
    WHERE m.conversation_id = c.id`
})
