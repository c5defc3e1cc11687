import { defineCommand } from "../../../../command"
import { usageError } from "../../../../errors"
import { present } from "../../../../output/present"
import { findGateway, gatewayView, secondsArgument, versionArgument } from "../../../../views/ai"

export default defineCommand({
  description: "change a gateway's name, base URL, timeout or state (409 if someone changed it meanwhile)",
  examples: ["lore admin ai gateways update openai --timeout 120", "lore admin ai gateways update ollama --disable --if-version 3"],
  configure: (command) =>
    command
      .argument("<gateway>", "gateway key or id")
      .option("--name <name>", "display name")
      .option("--base-url <url>", "API base including its version path")
      .option("--timeout <seconds>", "seconds to wait for an answer", secondsArgument)
      .option("--enable", "enable it")
      .option("--disable", "disable it (its routes fall back to LOCAL)")
      .option("--if-version <version>", "the version you read (default: the current one)", versionArgument),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ name?: string; baseUrl?: string; timeout?: number; enable?: boolean; disable?: boolean; ifVersion?: number }>()
    if (flags.enable && flags.disable) throw usageError("--enable and --disable together: pass one")
    if (flags.name === undefined && flags.baseUrl === undefined && flags.timeout === undefined && !flags.enable && !flags.disable) {
      throw usageError("nothing to change: pass --name, --base-url, --timeout, --enable or --disable")
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Updating gateway ${ref}`,
      run: async () => {
        const gateway = await findGateway(lore, ref)
        return lore.admin.ai.updateGateway(gateway.id, {
          version: flags.ifVersion ?? gateway.version,
          ...(flags.name === undefined ? {} : { displayName: flags.name.trim() }),
          ...(flags.baseUrl === undefined ? {} : { baseUrl: flags.baseUrl }),
          ...(flags.timeout === undefined ? {} : { requestTimeoutSeconds: flags.timeout }),
          ...(flags.enable ? { enabled: true } : flags.disable ? { enabled: false } : {})
        })
      },
      view: (gateway) => gatewayView(gateway, `Updated gateway ${gateway.gatewayKey}`)
    })
  }
})
