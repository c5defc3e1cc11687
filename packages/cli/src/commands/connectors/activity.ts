import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { activityView, kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "a connection's objects, checkpoints and recent crawl attempts",
  examples: ["lore connectors activity crm", "lore connectors activity crm --json | jq .objectsActive"],
  configure: (command) => withKind(command.argument("<key>", "the connection's key")),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: `Loading the activity of ${key}`, run: () => lore.admin.connectors.activity(kind, key), view: activityView })
  }
})
