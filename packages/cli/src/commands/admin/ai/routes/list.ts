import { defineCommand } from "../../../../command"
import { present } from "../../../../output/present"
import { routesView } from "../../../../views/ai"

export default defineCommand({
  description: "every workload's effective route and where it comes from (DEFAULT, ENVIRONMENT, ADMIN)",
  isDefault: true,
  examples: ["lore admin ai routes list", "lore --json admin ai routes | jq '.[] | {workload, modelId}'"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading routes", run: () => lore.admin.ai.routes(), view: routesView })
  }
})
