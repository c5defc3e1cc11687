import type { Asset, AssetType, Classification } from "@lore/sdk"
import { readFile } from "node:fs/promises"
import { parse, stringify } from "yaml"
import { usageError } from "./errors"

/**
 * Assets as files in a repository: one YAML document per asset, its payload written out as YAML (not as the
 * JSON string the API carries), so reviews of the repository read like the asset. `lore assets pull` writes
 * them, `push` creates or updates drafts from them, idempotently.
 *
 *   type: PROMPT_TEMPLATE
 *   namespace: ops
 *   slug: incident-summary
 *   knowledgeSpace: general      # key or id
 *   title: Incident summary
 *   summary: ...
 *   classification: INTERNAL
 *   schemaVersion: "1"
 *   payload: { objective: ..., ... }
 */
export interface AssetFile {
  readonly type: AssetType
  readonly namespace: string
  readonly slug: string
  readonly knowledgeSpace: string
  readonly title: string
  readonly summary: string
  readonly classification: Classification
  readonly schemaVersion: string
  readonly payload: unknown
}

const required = ["type", "namespace", "slug", "knowledgeSpace", "title", "classification", "schemaVersion", "payload"] as const

export const readAssetFile = async (path: string): Promise<AssetFile> => {
  let document: unknown
  try {
    document = parse(await readFile(path, "utf8"))
  } catch (error) {
    throw usageError(`${path} is not YAML: ${error instanceof Error ? error.message.split("\n")[0] : "unreadable"}`)
  }
  if (document === null || typeof document !== "object" || Array.isArray(document)) throw usageError(`${path} does not hold an asset (a YAML mapping)`)
  const fields = document as Record<string, unknown>
  const missing = required.filter((key) => fields[key] === undefined || fields[key] === null)
  if (missing.length > 0) throw usageError(`${path} lacks ${missing.join(", ")}`)
  return {
    type: String(fields.type) as AssetType,
    namespace: String(fields.namespace),
    slug: String(fields.slug),
    knowledgeSpace: String(fields.knowledgeSpace),
    title: String(fields.title),
    summary: fields.summary === undefined || fields.summary === null ? "" : String(fields.summary),
    classification: String(fields.classification) as Classification,
    schemaVersion: String(fields.schemaVersion),
    payload: fields.payload
  }
}

/** The file for an asset: its draft when the caller sees it, else its latest release. */
export const assetFileOf = (asset: Asset, knowledgeSpace: string): AssetFile | undefined => {
  const content = asset.draft ?? asset.releases.at(-1)
  if (!content) return undefined
  return {
    type: asset.type,
    namespace: asset.namespace,
    slug: asset.slug,
    knowledgeSpace,
    title: content.title,
    summary: content.summary,
    classification: content.classification,
    schemaVersion: content.schemaVersion,
    payload: JSON.parse(content.payload)
  }
}

export const assetFileText = (file: AssetFile) => stringify(file, { lineWidth: 0 })

/** JSON with object keys sorted, to compare contents regardless of key order. */
const stable = (value: unknown): string =>
  Array.isArray(value) ? `[${value.map(stable).join(",")}]`
    : value !== null && typeof value === "object" ? `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${stable((value as Record<string, unknown>)[key])}`).join(",")}}`
    : JSON.stringify(value)

/** Whether the file says what the draft already holds (push then changes nothing). */
export const sameContent = (file: AssetFile, draft: NonNullable<Asset["draft"]>) =>
  file.title === draft.title && file.summary === draft.summary && file.classification === draft.classification &&
  file.schemaVersion === draft.schemaVersion && stable(file.payload) === stable(JSON.parse(draft.payload))

/** The draft fields the API takes, from a file. */
export const draftFields = (file: AssetFile) => ({
  title: file.title,
  summary: file.summary,
  classification: file.classification,
  schemaVersion: file.schemaVersion,
  payload: JSON.stringify(file.payload)
})
