import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "what a connection can reach (scopes), whether each is admissible, and what to do when not",
  examples: ["lore connectors scopes crm", "lore connectors scopes crm --json"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Loading the scopes of ${key}`,
      run: () => lore.admin.connectors.scopes(kind, key),
      view: (scopes) => [{
        kind: "table",
        columns: [{ header: "scope" }, { header: "name" }, { header: "reachable" }, { header: "admissible" }, { header: "instruction" }],
        rows: scopes.map((s) => [s.key, s.displayName, s.reachable ? "yes" : "no", s.admissible ? "yes" : "no", s.instruction ?? ""]),
        empty: "No scopes."
      }]
    })
  }
})
