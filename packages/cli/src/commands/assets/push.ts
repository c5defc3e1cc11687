import { filesFromArguments } from "../../files"
import { resolveAsset, resolveSpace } from "../../arguments"
import { draftFields, readAssetFile, sameContent } from "../../assetFiles"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { styled } from "../../output/view"
import { idCell } from "../../views/users"

interface Pushed {
  readonly file: string
  readonly asset: string
  readonly assetId: string
  readonly change: "created" | "updated" | "unchanged"
  readonly lockVersion: number
}

export default defineCommand({
  description: "create or update drafts from asset files, idempotently (an unchanged file changes nothing)",
  examples: ["lore assets push 'assets/**/*.yaml'", "lore --json assets push assets/ops/incident-summary.yaml"],
  notes: "Each file is one asset (see 'lore assets pull' for the format). A file whose content the draft already holds is left alone, so CI can push on every commit.",
  configure: (command) => command.argument("<files...>", "asset files or quoted patterns"),
  run: async (runtime, command) => {
    const [args] = command.processedArgs as [Array<string>]
    const files = await filesFromArguments(args)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Pushing ${files.length} asset file${files.length === 1 ? "" : "s"}`,
      run: async () => {
        const pushed: Array<Pushed> = []
        for (const path of files) {
          const file = await readAssetFile(path)
          const name = `${file.namespace}/${file.slug}`
          const existing = await resolveAsset(lore, name)
          if (!existing) {
            const space = await resolveSpace(lore, file.knowledgeSpace, "read")
            const created = await lore.assets.create({ type: file.type, namespace: file.namespace, slug: file.slug, knowledgeSpaceId: space.id, draft: draftFields(file) })
            pushed.push({ file: path, asset: name, assetId: created.id, change: "created", lockVersion: created.draft!.lockVersion })
            continue
          }
          const asset = await lore.assets.get(existing.id)
          if (!asset.draft) throw new CliError(ExitCode.forbidden, "ASSET_ROLE_REQUIRED", `you may not edit ${name}: you see its releases only`)
          if (sameContent(file, asset.draft)) {
            pushed.push({ file: path, asset: name, assetId: asset.id, change: "unchanged", lockVersion: asset.draft.lockVersion })
            continue
          }
          const updated = await lore.assets.updateDraft(asset.id, { ...draftFields(file), lockVersion: asset.draft.lockVersion })
          pushed.push({ file: path, asset: name, assetId: asset.id, change: "updated", lockVersion: updated.draft!.lockVersion })
        }
        return pushed
      },
      view: (pushed) => [{
        kind: "table",
        columns: [{ header: "change" }, { header: "asset" }, { header: "file", fit: "text" }, { header: "lockVersion", align: "right" }, { header: "id", fit: "optional" }],
        rows: pushed.map((p) => [styled(p.change, p.change === "unchanged" ? "muted" : "success"), p.asset, p.file, String(p.lockVersion), idCell(p.assetId)]),
        empty: "No files."
      }]
    })
  }
})
