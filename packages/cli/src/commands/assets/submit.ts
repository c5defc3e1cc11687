import { requireAsset } from "../../arguments"
import { refuseStarterText } from "../../assetStarters"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import type { LoreClient } from "../../context"
import type { Asset } from "@lore/sdk"
import { assetView } from "../../views/assets"

/** Best effort: people who may approve (ASSET_REVIEWER holders and the asset's REVIEWERs), by email when the caller may read users. */
const reviewersOf = async (lore: LoreClient, asset: Asset, me: string): Promise<Array<string>> => {
  const ids = new Set(asset.roleAssignments.filter((a) => a.role === "REVIEWER" && a.principalType === "USER").map((a) => a.principalId))
  const roles = await lore.admin.roles.list().catch(() => undefined)
  for (const id of roles?.roles.find((r) => r.role === "ASSET_REVIEWER")?.assignees ?? []) ids.add(id)
  ids.delete(me)
  const users = await lore.admin.users.list().catch(() => undefined)
  const emails = new Map((users ?? []).map((u) => [u.id, u.email]))
  return [...ids].map((id) => emails.get(id) ?? id)
}

/**
 * `APPROVALS 0/1 — reviewers: a@x, or add one with lore assets roles ...`: who can move the review on, since the
 * author cannot approve their own revision and a reviewer who cannot see the asset gets only "not found".
 */
const approvalsHint = (asset: Asset, reviewers: ReadonlyArray<string>) => {
  const review = asset.reviews.find((r) => r.state === "IN_REVIEW")
  if (!review) return undefined
  const approvals = review.decisions.filter((d) => d.decision === "APPROVE").length
  const add = `lore assets roles ${asset.namespace}/${asset.slug} --add REVIEWER --user <email> (they need viewer on the space)`
  const who = reviewers.length > 0 ? `reviewers: ${reviewers.join(", ")}, or add one with ${add}` : `no reviewer found you can name; add one with ${add}`
  return `APPROVALS ${approvals}/${review.requiredApprovals} — ${who}`
}

export default defineCommand({
  description: "submit the draft for review: an immutable revision, and a review under the space's policy",
  examples: ["lore assets submit ops/incident-summary --note 'tightened the objective'"],
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .option("--note <text>", "the change note reviewers read", "")
      .option("--lock-version <n>", "submit only if the draft is still at this lockVersion (default: as read now)", (v) => Number.parseInt(v, 10)),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ note: string; lockVersion?: number }>()
    const lore = runtime.client({ requireToken: true })
    let hint: string | undefined
    await present(runtime, {
      progress: "Submitting",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", "you see this asset's releases only")
        refuseStarterText(asset.type, asset.draft.payload, ref)
        const submitted = await lore.assets.submit(asset.id, { changeNote: flags.note, lockVersion: flags.lockVersion ?? asset.draft.lockVersion })
        if (runtime.output !== "json") hint = approvalsHint(submitted, await reviewersOf(lore, submitted, (await lore.me.get()).userId))
        return submitted
      },
      view: (asset) => [...assetView(asset), ...(hint ? [{ kind: "hint" as const, text: hint }] : [])]
    })
  }
})
