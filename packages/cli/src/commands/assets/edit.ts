import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { requireAsset } from "../../arguments"
import { assetFileOf, assetFileText, draftFields, readAssetFile, sameContent } from "../../assetFiles"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "edit an asset's draft in $EDITOR (saved under the lockVersion it was read at)",
  examples: ["lore assets edit ops/incident-summary", "EDITOR=nano lore assets edit <assetId>"],
  notes: "Needs a terminal; in scripts and CI use 'lore assets pull' and 'lore assets push'.",
  configure: (command) => command.argument("<asset>", "the asset's id or namespace/slug"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    if (!runtime.canPrompt) throw usageError("'lore assets edit' opens an editor and needs a terminal (stdin is not one, or CI is set)", "Use 'lore assets pull' and 'lore assets push' instead.")
    const lore = runtime.client({ requireToken: true })
    const asset = await lore.assets.get(await requireAsset(lore, ref))
    if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", "you see this asset's releases only; its draft is not yours to edit")
    const spaces = new Map((await lore.knowledgeSpaces.visible()).map((space) => [space.id, space.key]))
    const dir = mkdtempSync(join(tmpdir(), "lore-asset-"))
    const path = join(dir, `${asset.slug}.yaml`)
    try {
      writeFileSync(path, assetFileText(assetFileOf(asset, spaces.get(asset.knowledgeSpaceId) ?? asset.knowledgeSpaceId)!))
      const editor = process.env.VISUAL || process.env.EDITOR || "vi"
      const result = spawnSync(editor, [path], { stdio: "inherit", shell: true })
      if (result.status !== 0) throw new CliError(ExitCode.unexpected, "EDITOR_FAILED", `${editor} exited with ${result.status ?? "a signal"}; nothing saved`)
      const file = await readAssetFile(path)
      const draft = asset.draft
      await present(runtime, {
        progress: "Saving the draft",
        run: async () => (sameContent(file, draft) ? asset : lore.assets.updateDraft(asset.id, { ...draftFields(file), lockVersion: draft.lockVersion })),
        view: assetView
      })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
})
