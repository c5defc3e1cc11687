import { requireAsset, requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "decide on an asset's open review: approve, request changes or reject (authors cannot approve their own)",
  examples: ["lore assets review ops/incident-summary --approve --comment 'clear and safe'", "lore assets review ops/incident-summary --request-changes --comment 'name the audience'"],
  configure: (command) =>
    command
      .argument("<asset>", "the asset's id or namespace/slug")
      .option("--approve", "approve the revision")
      .option("--request-changes", "ask the author for changes")
      .option("--reject", "reject the revision")
      .option("--comment <text>", "what the author should know", "")
      .option("--review <reviewId>", "the review (default: the open one)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ approve?: boolean; requestChanges?: boolean; reject?: boolean; comment: string; review?: string }>()
    const chosen = [flags.approve && "APPROVE", flags.requestChanges && "REQUEST_CHANGES", flags.reject && "REJECT"].filter((d): d is "APPROVE" | "REQUEST_CHANGES" | "REJECT" => Boolean(d))
    if (chosen.length !== 1) throw usageError("pass exactly one of --approve, --request-changes, --reject")
    if (flags.review) requireId(flags.review, "review", "'lore --json assets show <asset>' lists the reviews")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Recording the decision",
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, ref))
        const reviewId = flags.review ?? asset.reviews.find((review) => review.state === "IN_REVIEW")?.id
        if (!reviewId) throw new CliError(ExitCode.notFound, "REVIEW_NOT_FOUND", "the asset has no open review you can see")
        return lore.assets.decide(asset.id, reviewId, { decision: chosen[0]!, comment: flags.comment })
      },
      view: assetView
    })
  }
})
