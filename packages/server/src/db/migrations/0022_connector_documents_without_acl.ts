import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Connector documents without a source ACL (WEB: a site's pages are for everyone in the knowledge space): their
 * acl_keys are NULL, as on their sources and chunks, where NULL already means "no source ACL"; `acl` holds JSON null.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE connector_documents ALTER COLUMN acl_keys DROP NOT NULL`
})
