import { type Command, InvalidArgumentError } from "commander"
import { type AccessToken, type CommandModule, handler, type IssuedAccessToken } from "../command"
import type { LoreClient } from "../context"
import { usageError } from "../errors"
import { present } from "../output/render"
import { type Cell, formatDate, formatTime, styled, type View } from "../output/view"

export const listTokens = (lore: LoreClient): Promise<ReadonlyArray<AccessToken>> => lore.tokens.list()

/** `expiresInDays`: a number of days, null for a token that never expires, undefined for the server's default. */
export const createToken = (lore: LoreClient, input: { readonly name: string; readonly expiresInDays: number | null | undefined }) =>
  lore.tokens.create(input.expiresInDays === undefined ? { name: input.name } : { name: input.name, expiresInDays: input.expiresInDays })

export const revokeToken = async (lore: LoreClient, tokenId: string) => {
  await lore.tokens.revoke(tokenId)
  return { id: tokenId, revoked: true as const }
}

const statusCell = (status: AccessToken["status"]): Cell =>
  styled(status, status === "ACTIVE" ? "success" : status === "REVOKED" ? "error" : "warning")

export const tokensTableView = (tokens: ReadonlyArray<AccessToken>): View => [
  {
    kind: "table",
    columns: [{ header: "id" }, { header: "name" }, { header: "prefix" }, { header: "status" }, { header: "created" }, { header: "expires" }, { header: "last used" }],
    rows: tokens.map((token) => [
      styled(token.id, "muted"),
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

const createdView = (token: IssuedAccessToken): View => [
  { kind: "message", tone: "success", text: `Created token ${token.name}` },
  { kind: "secret", label: "Token (shown only now; store it somewhere safe)", value: token.token, note: "Use it with: lore login --token <token>, or LORE_TOKEN=<token>" },
  {
    kind: "fields",
    fields: [
      ["Id", styled(token.id, "muted")],
      ["Expires", formatTime(token.expiresAt, "never")]
    ]
  }
]

const parseDays = (value: string) => {
  const days = Number(value)
  if (!/^\d+$/.test(value) || days < 1 || days > 3650) throw new InvalidArgumentError("a whole number of days from 1 to 3650")
  return days
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export const tokensCommand: CommandModule = {
  register: (program: Command) => {
    const tokens = program.command("tokens").description("manage your personal access tokens")

    tokens
      .command("list")
      .description("list your tokens (the secrets are never shown again)")
      .action(
        handler(async (runtime) => {
          const lore = runtime.client({ requireToken: true })
          await present(runtime, { progress: "Loading tokens", run: () => listTokens(lore), view: tokensTableView })
        })
      )

    tokens
      .command("create")
      .description("create a token; prints the secret once")
      .argument("<name>", "a name to recognize the token by (e.g. 'ci release pipeline')")
      .option("--expires-in-days <days>", "days until the token expires (default: the server's, 90)", parseDays)
      .option("--no-expiry", "create a token that never expires")
      .action(
        handler(async (runtime, command) => {
          const [name] = command.processedArgs as [string]
          const options = command.opts<{ expiresInDays?: number; expiry: boolean }>()
          if (options.expiresInDays !== undefined && options.expiry === false) {
            throw usageError("pass either --expires-in-days or --no-expiry, not both")
          }
          const expiresInDays = options.expiry === false ? null : options.expiresInDays
          const lore = runtime.client({ requireToken: true })
          await present(runtime, { progress: "Creating token", run: () => createToken(lore, { name, expiresInDays }), view: createdView })
        })
      )

    tokens
      .command("revoke")
      .description("revoke a token at once (see 'lore tokens list' for ids)")
      .argument("<tokenId>", "the token's id")
      .action(
        handler(async (runtime, command) => {
          const [tokenId] = command.processedArgs as [string]
          if (!UUID.test(tokenId)) throw usageError(`'${tokenId}' is not a token id; 'lore tokens list' shows the ids`)
          const lore = runtime.client({ requireToken: true })
          await present(runtime, {
            progress: "Revoking token",
            run: () => revokeToken(lore, tokenId),
            view: (result) => [{ kind: "message", tone: "success", text: `Revoked token ${result.id}` }]
          })
        })
      )
  }
}
