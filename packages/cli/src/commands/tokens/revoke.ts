import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"

export default defineCommand({
  description: "revoke a token at once (see 'lore tokens list' for ids)",
  examples: ["lore tokens revoke 6d7ec658-92e6-4fc3-8823-e3c5970422f4"],
  configure: (command) => command.argument("<tokenId>", "the token's id"),
  run: async (runtime, command) => {
    const [tokenId] = command.processedArgs as [string]
    requireId(tokenId, "token", "'lore tokens list' shows the ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Revoking token",
      run: async () => {
        await lore.tokens.revoke(tokenId)
        return { id: tokenId, revoked: true as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Revoked token ${result.id}` }]
    })
  }
})
