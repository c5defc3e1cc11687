import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The assistant's tool loop (docs/decisions.md "Assistant tool calls"): an assistant message keeps the steps
 * it streamed (the UI message parts: step starts, tool calls with their input and output or error, texts) as
 * JSON text beside its `content`, which stays the answer's text; and an assistant model an administrator lists
 * says whether it may be sent tools (off unless they say so: LOCAL and older models answer in one call).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE assistant_messages ADD COLUMN parts text`
  yield* sql`ALTER TABLE ai_assistant_models ADD COLUMN tool_calling boolean NOT NULL DEFAULT false`
})
