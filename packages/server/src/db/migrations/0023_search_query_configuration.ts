import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * The text search configuration search questions are parsed with: 'english' without the whole hyphenated
 * word. PostgreSQL's parser emits "anti-trafficking" both whole ('anti-traffick') and as its parts ('anti',
 * 'traffick'); the whole compound is a rare, high-IDF term that favours passages spelling it exactly the same
 * way and counts the words twice. Questions keep the parts only, as a textbook (Lucene-style) analyzer does;
 * host names, e-mail addresses, file paths and signed numbers are other token types and are kept whole.
 * Chunks are still indexed with 'english' (docs/decisions.md, "Search quality evaluation").
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TEXT SEARCH CONFIGURATION lore_search_query (COPY = english)`
  yield* sql`ALTER TEXT SEARCH CONFIGURATION lore_search_query DROP MAPPING FOR asciihword, hword, numhword`
})
