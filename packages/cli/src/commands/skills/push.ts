import { type Classification, classificationValues, LoreApiError } from "@lore/sdk"
import { oneOf, resolveAsset, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { present } from "../../output/present"
import { draftDigest, packageProblems, packSkill } from "../../skillPackages"
import { type PushedSkill, pushedSkillView } from "../../views/skills"

export default defineCommand({
  description: "create or update a skill's draft from its folder, idempotently (an unchanged package changes nothing)",
  examples: [
    "lore skills push ./skills/pdf-tools --namespace docs --space playbooks",
    "lore skills push ./skills/pdf-tools --namespace docs --submit --note 'tables'"
  ],
  notes: "The asset is namespace/<the skill's name>. --space is needed only to create it. With --submit the draft is submitted for review (then 'lore assets review' and 'lore assets release').",
  configure: (command) =>
    command
      .argument("<path>", "a skill folder (holding SKILL.md) or a .zip")
      .requiredOption("--namespace <namespace>", "the namespace the skill lives in")
      .option("--space <space>", "knowledge space key or id (to create the skill)")
      .option("--classification <level>", "classification of a new skill (default INTERNAL)", oneOf(classificationValues))
      .option("--submit", "submit the draft for review afterwards")
      .option("--note <text>", "change note of the submission", ""),
  run: async (runtime, command) => {
    const [path] = command.processedArgs as [string]
    const flags = command.opts<{ namespace: string; space?: string; classification?: Classification; submit?: boolean; note: string }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Pushing ${path}`,
      run: async (): Promise<PushedSkill> => {
        const packed = await packSkill(path)
        const upload = () => ({ file: new Blob([packed.bytes as Uint8Array<ArrayBuffer>]), fileName: packed.fileName, size: packed.bytes.length })
        try {
          const inspection = await lore.assets.skills.inspect(upload())
          const name = `${flags.namespace}/${inspection.name}`
          const existing = await resolveAsset(lore, name)
          let asset
          let change: PushedSkill["change"]
          if (!existing) {
            if (!flags.space) throw usageError(`${name} does not exist yet: pass --space <space> to create it`)
            const space = await resolveSpace(lore, flags.space, "read")
            asset = await lore.assets.skills.create({ ...upload(), namespace: flags.namespace, knowledgeSpaceId: space.id, classification: flags.classification })
            change = "created"
          } else {
            asset = await lore.assets.get(existing.id)
            if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", `you may not edit ${name}: you see its releases only`)
            if (draftDigest(asset.draft.payload) === inspection.sha256) change = "unchanged"
            else {
              asset = await lore.assets.skills.updateDraft(asset.id, { ...upload(), expectedLockVersion: asset.draft.lockVersion })
              change = "updated"
            }
          }
          let submitted = false
          if (flags.submit) {
            const open = asset.reviews.some((review) => review.state === "IN_REVIEW")
            if (!open || change !== "unchanged") {
              asset = await lore.assets.submit(asset.id, { changeNote: flags.note, lockVersion: asset.draft!.lockVersion })
              submitted = true
            }
          }
          return { asset: name, assetId: asset.id, change, lockVersion: asset.draft!.lockVersion, packageDigest: inspection.sha256, submitted }
        } catch (error) {
          if (LoreApiError.is(error) && error.code === "INVALID_SKILL_PACKAGE") throw packageProblems(error)
          throw error
        }
      },
      view: pushedSkillView
    })
  }
})
