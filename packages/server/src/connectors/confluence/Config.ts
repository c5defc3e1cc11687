import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { type AtlassianCredential, type Deployment, parseAtlassianCredential, readAtlassianConfig, readAtlassianCredential } from "../atlassian/Site"

export type { Deployment }

export interface ConfluenceConfig {
  readonly deployment: Deployment
  /** The site root with its context path, no trailing slash (`https://acme.atlassian.net/wiki`). */
  readonly baseUrl: string
  readonly spaces: ReadonlyArray<string>
  /** Hours between full walks, which find deletions (default 24); crawls in between read what changed since the last. */
  readonly reconcileEveryHours: number
}

export type ConfluenceCredential = AtlassianCredential

const SPACE_KEY = /^[A-Za-z0-9~][A-Za-z0-9_~-]{0,254}$/
const MAX_SPACES = 500

export const readConfluenceConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings
): { readonly ok: true; readonly config: ConfluenceConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const read = readAtlassianConfig(sourceConfig, settings, {
    product: "Confluence", example: "https://acme.atlassian.net/wiki", listField: "spaces", pattern: SPACE_KEY, max: MAX_SPACES, noun: "space key", rule: "letters, digits, '_', '-', '~'"
  })
  if (!read.ok) return read
  const { keys, ...site } = read.site
  return { ok: true, config: { ...site, spaces: keys } }
}

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readConfluenceCredential = readAtlassianCredential("Confluence")

export const parseCredential = parseAtlassianCredential
