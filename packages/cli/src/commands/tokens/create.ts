import { parseCount } from "../../arguments"
import { defineCommand, type IssuedAccessToken } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { formatTime, styled, type View } from "../../output/view"

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

export default defineCommand({
  description: "create a token; prints the secret once",
  examples: [
    "lore tokens create \"ci pipeline\" --expires-in-days 30",
    "lore tokens create backup --no-expiry",
    "lore --json tokens create deploy | jq -r .token   # the secret, for a secret store"
  ],
  configure: (command) =>
    command
      .argument("<name>", "a name to recognize the token by (e.g. 'ci release pipeline')")
      .option("--expires-in-days <days>", "days until the token expires, 1 to 3650 (default: the server's, 90)", parseCount(1, 3650))
      .option("--no-expiry", "create a token that never expires"),
  run: async (runtime, command) => {
    const [name] = command.processedArgs as [string]
    const options = command.opts<{ expiresInDays?: number; expiry: boolean }>()
    if (options.expiresInDays !== undefined && options.expiry === false) throw usageError("pass either --expires-in-days or --no-expiry, not both")
    // A number of days, null for a token that never expires, undefined for the server's default.
    const expiresInDays = options.expiry === false ? null : options.expiresInDays
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Creating token",
      run: () => lore.tokens.create(expiresInDays === undefined ? { name } : { name, expiresInDays }),
      view: createdView
    })
  }
})
