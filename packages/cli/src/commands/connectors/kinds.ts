import { defineCommand } from "../../command"
import { present } from "../../output/present"

export default defineCommand({
  description: "the connector kinds this server has (sourceSystem values)",
  examples: ["lore connectors kinds", "lore --json connectors kinds | jq -r '.[].sourceSystem'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading connector kinds",
      run: () => lore.admin.connectors.kinds(),
      view: (kinds) => [{
        kind: "table",
        columns: [{ header: "kind" }, { header: "name" }, { header: "credential" }, { header: "what it is", fit: "optional" }],
        rows: kinds.map((k) => [k.sourceSystem, k.displayName, k.credentialRequirement, k.credentialHint ?? ""]),
        empty: "No connector kinds."
      }]
    })
  }
})
