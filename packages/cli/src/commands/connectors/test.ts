import { defineCommand } from "../../command"
import { ExitCode } from "../../errors"
import { present } from "../../output/present"
import { styled } from "../../output/view"
import { kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "test a saved connection with its stored credential (exit 6 when it does not authenticate)",
  examples: ["lore connectors test crm", "lore connectors test crm --json"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const lore = runtime.client({ requireToken: true })
    const result = await present(runtime, {
      progress: `Testing ${kind} connection ${key}`,
      run: () => lore.admin.connectors.test(kind, key),
      view: (t) => [{
        kind: "fields",
        fields: [
          ["Authenticated", t.authenticated ? styled("yes", "success") : styled("no", "error")],
          ["Can read content", t.canReadContent ? "yes" : "no"],
          ["Account", t.accountName ?? "-"],
          ["Identity", t.identityName ?? "-"],
          ["Error", t.errorCode ?? "-"]
        ]
      }]
    })
    if (!result.authenticated) process.exitCode = ExitCode.invalid
  }
})
