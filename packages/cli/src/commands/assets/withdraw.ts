import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "withdraw a release (owners), or with --emergency at once as a governance admin",
  examples: ["lore assets withdraw ops/incident-summary --release 1.0.0 --reason 'superseded by 1.1.0'", "lore assets withdraw ops/incident-summary --release 1.1.0 --emergency --reason 'leaks a customer name'"],
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .requiredOption("--release <release>", "the release's version label or id")
      .requiredOption("--reason <text>", "why (kept in the availability history)")
      .option("--emergency", "emergency withdrawal (ORG_ADMIN or KNOWLEDGE_ADMIN)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ release: string; reason: string; emergency?: boolean }>()
    if (flags.reason.trim() === "") throw usageError("--reason must not be blank")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Withdrawing",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        const release = asset.releases.find((r) => r.id === flags.release || r.versionLabel === flags.release)
        if (!release) throw new CliError(ExitCode.notFound, "RELEASE_NOT_FOUND", `the asset has no release '${flags.release}'`)
        const input = { releaseId: release.id, reason: flags.reason }
        return flags.emergency ? lore.assets.emergencyWithdraw(asset.id, input) : lore.assets.withdraw(asset.id, input)
      },
      view: assetView
    })
  }
})
