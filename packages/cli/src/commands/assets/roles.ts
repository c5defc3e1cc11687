import { type AssetRole, assetRoleValues } from "@lore/sdk"
import { atMostOne, Directory, isUuid, oneOf, parseTime, requireAsset, requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { rolesView } from "../../views/assets"

export default defineCommand({
  description: "list an asset's role assignments and ownership health; add one (--add) or end one (--end)",
  examples: [
    "lore assets roles ops/incident-summary",
    "lore assets roles ops/incident-summary --add BACKUP_OWNER --user ana@example.com --until 2026-12-31",
    "lore assets roles ops/incident-summary --end <assignmentId>"
  ],
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .option("--add <role>", `assign a role: ${assetRoleValues.join(", ")}`, oneOf(assetRoleValues))
      .option("--user <user>", "whom (--add): a user id, or an email (needs users.read)")
      .option("--from <time>", "start of the window (--add; default now)")
      .option("--until <time>", "end of the window (--add; default open)")
      .option("--end <assignmentId>", "end an assignment now"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ add?: AssetRole; user?: string; from?: string; until?: string; end?: string }>()
    atMostOne({ "--add": flags.add, "--end": flags.end })
    if (flags.add && !flags.user) throw usageError("--add needs --user")
    if (flags.end) requireId(flags.end, "role assignment", "'lore assets roles <asset>' lists them")
    const validFrom = flags.from ? parseTime("--from", flags.from) : undefined
    const validUntil = flags.until ? parseTime("--until", flags.until) : undefined
    const lore = runtime.client({ requireToken: true })
    // People read emails, not ids: best effort, since listing users takes users.read.
    let emails = new Map<string, string>()
    const loadEmails = async () => {
      if (runtime.output === "json") return
      emails = new Map(((await lore.admin.users.list().catch(() => [])) ?? []).map((user) => [user.id, user.email]))
    }
    await present(runtime, {
      progress: "Loading roles",
      run: async () => {
        const [assetId] = await Promise.all([requireAsset(lore, ref), loadEmails()])
        if (flags.end) return lore.assets.endRole(assetId, flags.end)
        if (flags.add) {
          const principalId = isUuid(flags.user!) ? flags.user! : await new Directory(lore).userId(flags.user!)
          return lore.assets.assignRole(assetId, { principalType: "USER", principalId, role: flags.add, ...(validFrom ? { validFrom } : {}), ...(validUntil ? { validUntil } : {}) })
        }
        return lore.assets.get(assetId)
      },
      view: (asset) => rolesView(asset, emails)
    })
  }
})
