import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Whether a provisioning connection may take over an existing Lore user with the same email (issue 29, point 3).
 * Off for every connection, existing ones included: linking was the default before, and a provisioning token
 * could claim and deactivate any account that way, the only administrator's too.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE provisioning_connections ADD COLUMN link_existing_users boolean NOT NULL DEFAULT false`
})
