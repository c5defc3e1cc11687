import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { principalsView } from "../../views/connectors"

export default defineCommand({
  description: "every source principal (of one connection with --connection) and whom it is mapped to",
  isDefault: true,
  examples: ["lore principals list", "lore principals list --connection crm --unmapped", "lore --json principals | jq -r '.[].nativePrincipalId'"],
  configure: (command) =>
    command.option("--connection <key>", "only this connection's principals").option("--unmapped", "only principals not mapped to a Lore user"),
  run: async (runtime, command) => {
    const { connection, unmapped } = command.opts<{ connection?: string; unmapped?: boolean }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading source principals",
      run: async () => (await lore.admin.sourceIdentity.principals())
        .filter((p) => (!connection || p.sourceConnectionKey === connection) && (!unmapped || !p.mapping || p.mapping.status !== "ACTIVE")),
      view: principalsView
    })
  }
})
