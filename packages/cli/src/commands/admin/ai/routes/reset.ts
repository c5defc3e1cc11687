import type { AiWorkload } from "@lore/sdk"
import { aiWorkloadValues } from "@lore/sdk"
import { defineCommand } from "../../../../command"
import { present } from "../../../../output/present"
import { indexChangeView, routesView, versionArgument, workloadArgument } from "../../../../views/ai"

export default defineCommand({
  description: "return a workload to its default route (LORE_EMBEDDING_* for embeddings, else LOCAL)",
  examples: ["lore admin ai routes reset assistant-chat"],
  configure: (command) =>
    command
      .argument("<workload>", aiWorkloadValues.join(", "), workloadArgument)
      .option("--if-version <version>", "the route's version you read (refused if it changed)", versionArgument),
  run: async (runtime, command) => {
    const [workload] = command.processedArgs as [AiWorkload]
    const { ifVersion: version } = command.opts<{ ifVersion?: number }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Resetting ${workload}`,
      run: async () => {
        await lore.admin.ai.resetRoute(workload, version)
        const route = (await lore.admin.ai.routes()).find((candidate) => candidate.workload === workload)!
        const index = workload === "DOCUMENT_EMBEDDING" ? await lore.admin.ai.indexSettings() : undefined
        return { route, index }
      },
      json: ({ route }) => route,
      view: ({ route, index }) => [...routesView([route]), ...(index ? indexChangeView(index) : [])]
    })
  }
})
