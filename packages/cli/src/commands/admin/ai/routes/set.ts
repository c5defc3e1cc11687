import type { AiWorkload, ProviderReasoningEffort } from "@lore/sdk"
import { aiWorkloadValues, providerReasoningEffortValues } from "@lore/sdk"
import { parseCount } from "../../../../arguments"
import { defineCommand } from "../../../../command"
import { usageError } from "../../../../errors"
import { present } from "../../../../output/present"
import { effortArgument, findGateway, indexChangeView, routesView, versionArgument, workloadArgument } from "../../../../views/ai"

export default defineCommand({
  description: "route a workload to a gateway and model; the gateway is tested first and a failing one refused unless --force (409 if someone changed the route meanwhile)",
  examples: ["lore admin ai routes set assistant-chat --gateway openai --model gpt-4o-mini", "lore admin ai routes set assistant-chat --gateway openai --model gpt-4o-mini --force", "lore admin ai routes set document-embedding --gateway ollama --model nomic-embed-text --dimensions 768"],
  configure: (command) =>
    command
      .argument("<workload>", aiWorkloadValues.join(", "), workloadArgument)
      .option("--gateway <gateway>", "gateway key or id")
      .option("--model <model>", "the model id the provider knows")
      .option("--reasoning-effort <effort>", providerReasoningEffortValues.join(", "), effortArgument)
      .option("--dimensions <n>", "vector size, required for query-embedding and document-embedding (e.g. 1536)", parseCount(1, 16_000))
      .option("--if-version <version>", "the route's version you read (default: the current one)", versionArgument)
      .option("--force", "route to the gateway even if its test fails (chat then answers offline until it is fixed)"),
  run: async (runtime, command) => {
    const [workload] = command.processedArgs as [AiWorkload]
    const flags = command.opts<{ gateway?: string; model?: string; reasoningEffort?: ProviderReasoningEffort; dimensions?: number; ifVersion?: number; force?: boolean }>()
    if (!flags.gateway) throw usageError("missing --gateway: pass a gateway key or id (see 'lore admin ai gateways')")
    if (!flags.model?.trim()) throw usageError("missing --model: pass the model id (see 'lore admin ai gateways models <gateway>')")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Routing ${workload}`,
      run: async () => {
        const [gateway, routes] = await Promise.all([findGateway(lore, flags.gateway!), lore.admin.ai.routes()])
        const current = routes.find((route) => route.workload === workload)
        const route = await lore.admin.ai.setRoute(workload, {
          gatewayProfileId: gateway.id,
          modelId: flags.model!.trim(),
          ...(flags.reasoningEffort === undefined ? {} : { providerReasoningEffort: flags.reasoningEffort }),
          ...(flags.dimensions === undefined ? {} : { dimensions: flags.dimensions }),
          version: flags.ifVersion ?? (current?.source === "ADMIN" ? current.version : 0),
          ...(flags.force ? { force: true } : {})
        })
        // The search index follows the document route: say whether a re-embedding was queued.
        const index = workload === "DOCUMENT_EMBEDDING" ? await lore.admin.ai.indexSettings() : undefined
        return { route, index }
      },
      json: ({ route }) => route,
      view: ({ route, index }) => [...routesView([route]), ...(index ? indexChangeView(index) : [])]
    })
  }
})
