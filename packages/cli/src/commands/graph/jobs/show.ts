import { requireId } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { jobView } from "../../../views/graph"

export default defineCommand({
  description: "show one graph job: status, progress, error, processing profile",
  examples: ["lore graph jobs show <jobId>", "lore --json graph jobs show <jobId> | jq .status"],
  configure: (command) => command.argument("<jobId>", "the graph job's id (lore graph index answers it)"),
  run: async (runtime, command) => {
    const [jobId] = command.processedArgs as [string]
    requireId(jobId, "graph job", "lore graph index answers the job ids")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Graph job", run: () => lore.graph.job(jobId), view: jobView })
  }
})
