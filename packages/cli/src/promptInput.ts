import type { Asset } from "@lore/sdk"
import { readFile } from "node:fs/promises"
import { parse } from "yaml"
import { requireAsset, typedVariable } from "./arguments"
import type { LoreClient } from "./context"
import { CliError, ExitCode, usageError } from "./errors"

/** What `lore prompts render` and `run` share: the flags' variables, typed as the template declares, and the release. */
export interface PromptFlags {
  readonly release?: string
  readonly var: ReadonlyArray<readonly [string, string]>
  readonly varsFile?: string
}

/** Reads --vars-file before any request, so a bad file fails as a usage error. */
export const variablesFile = async (flags: PromptFlags): Promise<Record<string, unknown>> => {
  if (!flags.varsFile) return {}
  const parsed: unknown = parse(await readFile(flags.varsFile, "utf8"))
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw usageError(`${flags.varsFile} does not hold a mapping of variables`)
  return parsed as Record<string, unknown>
}

/** The asset, the release to use (by label or id; default the latest available) and the variables to send. */
export const promptInput = async (lore: LoreClient, ref: string, flags: PromptFlags, fromFile: Record<string, unknown>) => {
  const asset: Asset = await lore.assets.get(await requireAsset(lore, ref))
  const release = flags.release
    ? asset.releases.find((r) => r.id === flags.release || r.versionLabel === flags.release)
    : asset.releases.filter((r) => r.availability === "AVAILABLE").at(-1)
  if (!release) throw new CliError(ExitCode.notFound, "RELEASE_NOT_FOUND", flags.release ? `the asset has no release '${flags.release}'` : "the asset has no available release")
  const declared = new Map<string, string>((JSON.parse(release.payload) as { variables?: Array<{ name: string; type: string }> }).variables?.map((v) => [v.name, v.type]) ?? [])
  const variables: Record<string, unknown> = { ...fromFile }
  for (const [name, text] of flags.var) variables[name] = typedVariable(declared.get(name), text)
  return { assetId: asset.id, releaseId: release.id, variables }
}
