import { Effect } from "effect"
import { quoteInput } from "../domain/Echo"
import type { ConnectorKindModule } from "./Kind"

const MIN_SECRET = 24

/**
 * PUSH: the indexing API. Nothing is crawled: an external system puts and deletes documents and groups with
 * the connection's credential (a shared secret of at least 24 characters) as `Authorization: Bearer`.
 */
export const PushKind: ConnectorKindModule = {
  sourceSystem: "PUSH",
  displayName: "Indexing API (push)",
  validateConfig: (sourceConfig) => {
    const errors: Array<{ path: string; message: string }> = []
    for (const [key, value] of Object.entries(sourceConfig)) {
      if (key === "description") {
        if (typeof value !== "string" || value.length > 500) errors.push({ path: "sourceConfig.description", message: "must be a string of at most 500 characters" })
      } else {
        errors.push({ path: `sourceConfig.${quoteInput(key, 100)}`, message: "is not a setting of PUSH connections (allowed: description)" })
      }
    }
    return errors
  },
  readCredential: (credential) =>
    typeof credential !== "string"
      ? { ok: false, message: "credential must be a string (the pusher's shared secret)" }
      : credential.length < MIN_SECRET || credential.length > 4096
        ? { ok: false, message: `credential must be ${MIN_SECRET} to 4096 characters long` }
        : /\s/.test(credential)
          ? { ok: false, message: "credential must not contain whitespace" }
          : { ok: true, secret: credential },
  testCredentials: ({ credential }) =>
    Effect.succeed(credential === null
      ? { authenticated: false, accountName: null, identityName: null, canReadContent: false, errorCode: "CREDENTIAL_MISSING" }
      : { authenticated: true, accountName: null, identityName: "pusher", canReadContent: true, errorCode: null }),
  listScopes: ({ credential }) =>
    Effect.succeed([{
      key: "documents",
      displayName: "Documents and groups pushed to /api/indexing",
      reachable: credential !== null,
      admissible: true,
      instruction: credential === null ? "Set a credential (PUT .../credential), then push with it as Authorization: Bearer" : null
    }]),
  crawl: () => Effect.succeed({ documents: [], groups: [], deleted: [], checkpoint: { component: "push", note: "nothing to crawl" }, done: true })
}
