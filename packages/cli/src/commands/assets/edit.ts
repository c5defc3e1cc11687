import { LoreApiError } from "@lore/sdk"
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { requireAsset } from "../../arguments"
import { assetFileOf, assetFileText, draftFields, readAssetFile, sameContent } from "../../assetFiles"
import { defineCommand } from "../../command"
import { CliError, type CliFieldError, ExitCode, fieldErrorsOf, usageError } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

/** The lines lore writes at the top of the file to say what was wrong; stripped before the YAML is read. */
const NOTE = "# lore: "

const withNotes = (body: string, problems: ReadonlyArray<CliFieldError>) =>
  problems.length === 0 ? body : problems.map((p) => `${NOTE}${p.path ? `${p.path}: ` : ""}${p.message}`.replace(/\r?\n/g, " ")).join("\n") + "\n" + body

const withoutNotes = (text: string) => text.split("\n").filter((line) => !line.startsWith(NOTE.trimEnd())).join("\n")

/** A draft the server refused (422 invalid content, 409 a newer lockVersion), as notes for the next round. */
const refusal = (error: unknown): ReadonlyArray<CliFieldError> | undefined => {
  if (!LoreApiError.is(error) || (error.status !== 422 && error.status !== 409 && error.status !== 400)) return undefined
  const fields = fieldErrorsOf(error.errors)
  return [{ path: "", message: `${error.code}: ${error.detail}` }, ...fields]
}

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
    const editor = process.env.VISUAL || process.env.EDITOR || "vi"
    const draft = asset.draft
    let body = assetFileText(assetFileOf(asset, spaces.get(asset.knowledgeSpaceId) ?? asset.knowledgeSpaceId)!)
    let problems: ReadonlyArray<CliFieldError> = []
    // Until the draft is saved (or unchanged): an edit that does not read as an asset, or that the server refuses,
    // reopens the editor with what was wrong at the top; quitting without a change keeps the file.
    for (;;) {
      writeFileSync(path, withNotes(body, problems))
      const result = spawnSync(editor, [path], { stdio: "inherit", shell: true })
      if (result.status !== 0) {
        throw new CliError(ExitCode.unexpected, "EDITOR_FAILED", `${editor} exited with ${result.status ?? "a signal"}; nothing saved, your edits are in ${path}`)
      }
      const edited = withoutNotes(readFileSync(path, "utf8"))
      if (problems.length > 0 && edited === body) {
        throw new CliError(ExitCode.invalid, "DRAFT_NOT_SAVED", `the draft was not saved; your edits are kept in ${path}`, 0, undefined, "Fix it and run 'lore assets push " + path + "'.", problems)
      }
      body = edited
      writeFileSync(path, body)
      let file
      try {
        file = await readAssetFile(path)
      } catch (error) {
        if (!(error instanceof CliError)) throw error
        problems = [{ path: "", message: error.detail.replace(`${path} `, "the file ") }]
        continue
      }
      try {
        const loaded = file
        await present(runtime, {
          progress: "Saving the draft",
          run: async () => (sameContent(loaded, draft) ? asset : lore.assets.updateDraft(asset.id, { ...draftFields(loaded), lockVersion: draft.lockVersion })),
          view: assetView
        })
      } catch (error) {
        const notes = refusal(error)
        if (!notes) throw error
        problems = notes
        continue
      }
      rmSync(dir, { recursive: true, force: true })
      return
    }
  }
})
