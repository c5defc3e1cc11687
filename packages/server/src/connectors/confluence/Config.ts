import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import {
  type AtlassianCredential, type Deployment, parseAtlassianCredential, readAtlassianCredential,
  readKeyList, readReconcileHours, readSiteFields, refuseUnknownFields
} from "../atlassian/Site"

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
  const errors: Array<FieldError> = []
  const { deployment, baseUrl } = readSiteFields(sourceConfig, settings, errors, "https://acme.atlassian.net/wiki")
  const spaces = readKeyList(sourceConfig, "spaces", SPACE_KEY, MAX_SPACES, "space key", "letters, digits, '_', '-', '~'", errors)
  const reconcileEveryHours = readReconcileHours(sourceConfig, errors)
  refuseUnknownFields(sourceConfig, ["deployment", "baseUrl", "spaces", "reconcileEveryHours"], "Confluence", errors)
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, config: { deployment, baseUrl, spaces, reconcileEveryHours } }
}

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readConfluenceCredential = readAtlassianCredential("Confluence")

export const parseCredential = parseAtlassianCredential
