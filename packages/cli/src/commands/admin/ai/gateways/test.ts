import { defineCommand } from "../../../../command"
import { CliError, ExitCode } from "../../../../errors"
import { present } from "../../../../output/present"
import { findGateway, testView } from "../../../../views/ai"

export default defineCommand({
  description: "check a gateway's URL and API key by listing the provider's models (exit 1 when it fails)",
  examples: ["lore admin ai gateways test openai", "lore --json admin ai gateways test local"],
  notes: "A failed test exits 1 with its errorCode (UNAUTHORIZED, RATE_LIMITED, UNREACHABLE, TIMEOUT, BAD_RESPONSE, CREDENTIAL_UNREADABLE) as the error code.",
  configure: (command) => command.argument("<gateway>", "gateway key or id"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Testing gateway ${ref}`,
      run: async () => {
        const gateway = await findGateway(lore, ref)
        const result = await lore.admin.ai.testGateway(gateway.id)
        if (!result.authenticated) {
          throw new CliError(ExitCode.unexpected, result.errorCode ?? "TEST_FAILED", `gateway ${gateway.gatewayKey} failed its test: ${result.errorMessage ?? "no details"}`)
        }
        return { gateway: gateway.gatewayKey, ...result }
      },
      view: ({ gateway, ...result }) => testView(gateway, result)
    })
  }
})
