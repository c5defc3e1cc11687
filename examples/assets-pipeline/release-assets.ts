import { type Asset, createLoreClient, isLoreError } from "@lore/sdk"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { parse } from "yaml"

/**
 * The script the example workflow (lore-assets.yml) runs after `lore assets push`: for every asset file it
 * submits the draft when it changed since the asset's last revision (and no review is open), and releases the
 * newest approved revision that is not released yet, under the file's `releaseVersion` or else the next patch
 * version. Running it twice does nothing the second time.
 *
 *   LORE_SERVER=... LORE_TOKEN=... npx tsx examples/assets-pipeline/release-assets.ts examples/assets-pipeline/assets
 */

const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787", token: process.env.LORE_TOKEN })
const root = (process.argv[2] ?? "assets").replace(/\/\*\*.*$/, "")

const yamlFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? yamlFiles(join(dir, entry.name)) : /\.ya?ml$/.test(entry.name) ? [join(dir, entry.name)] : [])

const stable = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(stable).join(",")}]`
    : value !== null && typeof value === "object" ? `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${stable((value as Record<string, unknown>)[k])}`).join(",")}}`
    : JSON.stringify(value)

/** Whether the draft differs from the asset's latest revision (or there is none). */
const draftChanged = (asset: Asset) => {
  const draft = asset.draft!
  const last = asset.revisions.at(-1)
  return !last || last.title !== draft.title || last.summary !== draft.summary || last.classification !== draft.classification ||
    last.schemaVersion !== draft.schemaVersion || stable(JSON.parse(last.payload)) !== stable(JSON.parse(draft.payload))
}

const nextPatch = (asset: Asset) => {
  const latest = asset.releases.at(-1)?.versionLabel
  if (!latest) return "1.0.0"
  const [major, minor, patch] = latest.split(/[.+-]/).map(Number)
  return `${major}.${minor}.${(patch ?? 0) + 1}`
}

for (const path of yamlFiles(root)) {
  const file = parse(readFileSync(path, "utf8")) as { namespace: string; slug: string; releaseVersion?: string }
  const name = `${file.namespace}/${file.slug}`
  const found = (await lore.assets.list({ q: file.slug })).find((a) => a.namespace === file.namespace && a.slug === file.slug)
  if (!found) {
    console.log(`${name}: not found (run 'lore assets push' first)`)
    continue
  }
  let asset = await lore.assets.get(found.id)
  const open = asset.reviews.find((review) => review.state === "IN_REVIEW")
  if (!open && draftChanged(asset)) {
    asset = await lore.assets.submit(asset.id, { changeNote: `CI ${process.env.GITHUB_SHA ?? "run"}`, lockVersion: asset.draft!.lockVersion })
    console.log(`${name}: submitted revision ${asset.revisions.at(-1)!.sequence} for review`)
  }
  const released = new Set(asset.releases.map((release) => release.revisionId))
  const approved = asset.reviews.filter((review) => review.state === "APPROVED" && !released.has(review.revisionId)).at(-1)
  if (!approved) {
    console.log(`${name}: nothing approved to release`)
    continue
  }
  const versionLabel = file.releaseVersion ?? nextPatch(asset)
  try {
    asset = await lore.assets.release(asset.id, { revisionId: approved.revisionId, versionLabel })
    console.log(`${name}: released ${versionLabel} (${asset.releases.at(-1)!.digest})`)
  } catch (error) {
    if (isLoreError(error, "VERSION_NOT_GREATER", "REVISION_ALREADY_RELEASED")) console.log(`${name}: ${error.message}`)
    else throw error
  }
}
