import { type AccessToken, defineCommand } from "../../command"
import { present } from "../../output/present"
import { type Cell, formatDate, styled, type View } from "../../output/view"
import { idCell } from "../../views/users"

const statusCell = (status: AccessToken["status"]): Cell => styled(status, status === "ACTIVE" ? "success" : status === "REVOKED" ? "error" : "warning")

export const tokensView = (tokens: ReadonlyArray<AccessToken>): View => [
  {
    kind: "table",
    columns: [{ header: "id" }, { header: "name", fit: "text" }, { header: "prefix" }, { header: "status" }, { header: "created", fit: "optional" }, { header: "expires" }, { header: "last used", fit: "optional" }],
    rows: tokens.map((token) => [
      idCell(token.id),
      token.name,
      token.tokenPrefix,
      statusCell(token.status),
      formatDate(token.createdAt),
      formatDate(token.expiresAt, "never"),
      formatDate(token.lastUsedAt, "never")
    ]),
    empty: "No tokens."
  }
]

export default defineCommand({
  description: "list your tokens (the secrets are never shown again)",
  isDefault: true,
  examples: ["lore tokens list", "lore --json tokens | jq -r '.[] | select(.status == \"ACTIVE\") | .id'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading tokens", run: () => lore.tokens.list(), view: tokensView })
  }
})
