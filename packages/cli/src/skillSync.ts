import type { LoreClient } from "@lore/sdk"
import { existsSync } from "node:fs"
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import { join, resolve } from "node:path"
import { installPackage } from "./skillPackages"

/**
 * `lore skills sync`: the activated, released skills the caller may use, installed into a skills folder, with a
 * marker file (.lore-skills.json) naming what Lore installed there, so a later sync updates and removes only those.
 */

export const MARKER = ".lore-skills.json"

interface Installed {
  readonly assetId: string
  readonly coordinate: string
  readonly releaseId: string
  readonly packageDigest: string
}

interface Marker {
  readonly server: string
  readonly skills: Record<string, Installed>
}

export interface SyncedSkill {
  readonly coordinate: string
  readonly action: "installed" | "updated" | "unchanged" | "removed" | "skipped"
  readonly directory: string
  readonly packageDigest: string | null
}

const readMarker = async (path: string): Promise<Marker | undefined> => {
  try {
    const parsed = JSON.parse(await readFile(path, "utf8")) as Marker
    return typeof parsed === "object" && parsed !== null && typeof parsed.skills === "object" ? parsed : undefined
  } catch {
    return undefined
  }
}

export const syncSkills = async (lore: LoreClient, server: string, dir: string) => {
  const directory = resolve(dir)
  const markerPath = join(directory, MARKER)
  const previous = (await readMarker(markerPath))?.skills ?? {}
  const { recommendations } = await lore.assets.tools.recommendations({ type: "SKILL" })
  const activated = []
  for (const skill of recommendations) {
    if ((await lore.assets.skills.activation(skill.assetId)).enabled) activated.push(skill)
  }
  const next: Record<string, Installed> = {}
  const report: Array<SyncedSkill> = []
  for (const skill of activated) {
    const target = join(directory, skill.slug)
    const coordinate = `${skill.namespace}/${skill.slug}@${skill.versionLabel}`
    const mine = previous[skill.slug]
    if (next[skill.slug] || (!mine && existsSync(target)) || (mine && mine.assetId !== skill.assetId)) {
      // Another skill (the user's own, or one of another namespace) holds the folder.
      report.push({ coordinate, action: "skipped", directory: target, packageDigest: null })
      if (mine && !next[skill.slug]) next[skill.slug] = mine
      continue
    }
    const manifest = await lore.assets.skills.manifest(skill.assetId, skill.releaseId)
    if (mine && mine.packageDigest === manifest.packageDigest && existsSync(join(target, "SKILL.md"))) {
      next[skill.slug] = mine
      report.push({ coordinate, action: "unchanged", directory: target, packageDigest: manifest.packageDigest })
      continue
    }
    const pkg = await lore.assets.skills.package(skill.assetId, skill.releaseId, manifest.packageDigest)
    await installPackage(pkg.bytes, manifest, directory)
    next[skill.slug] = { assetId: skill.assetId, coordinate: manifest.coordinate, releaseId: skill.releaseId, packageDigest: manifest.packageDigest }
    report.push({ coordinate: manifest.coordinate, action: mine ? "updated" : "installed", directory: target, packageDigest: manifest.packageDigest })
  }
  for (const [slug, installed] of Object.entries(previous)) {
    if (next[slug]) continue
    await rm(join(directory, slug), { recursive: true, force: true })
    report.push({ coordinate: installed.coordinate, action: "removed", directory: join(directory, slug), packageDigest: installed.packageDigest })
  }
  await mkdir(directory, { recursive: true })
  const staged = `${markerPath}.${process.pid}.tmp`
  await writeFile(staged, JSON.stringify({ server, skills: next } satisfies Marker, null, 2) + "\n")
  await rename(staged, markerPath)
  return { directory, skills: report, installed: Object.values(next).map((s) => s.coordinate) }
}
