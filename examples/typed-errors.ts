import { type ClientErrorCode, createLoreClient, type ErrorCode, isLoreError } from "@lore/sdk"

/**
 * Typed error codes: a caught error is narrowed to the codes an operation declares, and a code the
 * operation cannot return (or a misspelt one) does not compile. CI type-checks this file.
 *
 *   npx tsx examples/typed-errors.ts              # first page of sources
 *   npx tsx examples/typed-errors.ts <cursor>     # the page after a previous run's cursor
 */

/**
 * What to tell a person for the codes of `listSources` worth explaining. `satisfies` checks each key
 * against ErrorCode<"listSources"> (and the SDK's own codes): a key listSources never answers is an error.
 */
const advice = {
  INVALID_CURSOR: "that cursor was not issued by this list: run again without one",
  UNAUTHENTICATED: "set LORE_TOKEN to a personal access token (lore tokens create)",
  INVALID_TOKEN: "LORE_TOKEN is unknown, revoked or expired: create a new one",
  USER_DEACTIVATED: "your account was deactivated: ask an administrator",
  NETWORK_ERROR: "no answer: is the server running at LORE_SERVER?",
  INVALID_BASE_URL: "LORE_SERVER must be the server's root, e.g. http://127.0.0.1:8787"
} satisfies Partial<Record<ErrorCode<"listSources"> | ClientErrorCode, string>>
const explained = Object.keys(advice) as Array<keyof typeof advice>

try {
  // Throws INVALID_BASE_URL at once for `localhost:8787` (no scheme), rather than failing on the first call.
  const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787", token: process.env.LORE_TOKEN })
  const page = await lore.sources.list({ cursor: process.argv[2], pageSize: 10 })
  for (const source of page.items) console.log(`${source.id}  ${source.classification.padEnd(12)} ${source.title}`)
  console.log(page.nextCursor ? `next page: npx tsx examples/typed-errors.ts ${page.nextCursor}` : `${page.total} sources in all`)
} catch (error) {
  if (isLoreError(error, ...explained)) {
    // error.code is narrowed to the explained codes, so indexing `advice` needs no cast.
    console.error(`${error.code}: ${advice[error.code]}`)
    process.exit(1)
  }
  if (isLoreError(error, "VALIDATION_FAILED")) {
    // problem+json `errors[]` names each field and the rule it broke.
    for (const field of error.errors ?? []) console.error(`${field.path}: ${field.message}`)
    process.exit(2)
  }
  throw error
}
