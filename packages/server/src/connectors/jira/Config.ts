import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import {
  type AtlassianCredential, type Deployment, parseAtlassianCredential, readAtlassianCredential, readKeyList, readReconcileHours,
  readSiteFields, refuseUnknownFields
} from "../atlassian/Site"

export interface JiraConfig {
  readonly deployment: Deployment
  /** The site root with its context path, no trailing slash (`https://acme.atlassian.net`, `https://jira.example.com/jira`). */
  readonly baseUrl: string
  /** Project keys. */
  readonly projects: ReadonlyArray<string>
  /** Hours between full walks, which find deletions (default 24); crawls in between read what changed since the last. */
  readonly reconcileEveryHours: number
}

export type JiraCredential = AtlassianCredential

/** Jira's project keys: a letter, then letters, digits or '_' (Jira's default pattern, upper case by convention). */
const PROJECT_KEY = /^[A-Za-z][A-Za-z0-9_]{0,254}$/
const MAX_PROJECTS = 500

/** The same shape as CONFLUENCE's config (atlassian/Site.ts), with `projects` in place of `spaces`. */
export const readJiraConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings
): { readonly ok: true; readonly config: JiraConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { deployment, baseUrl } = readSiteFields(sourceConfig, settings, errors, "https://acme.atlassian.net")
  const projects = readKeyList(sourceConfig, "projects", PROJECT_KEY, MAX_PROJECTS, "project key", "a letter, then letters, digits or '_'", errors)
  const reconcileEveryHours = readReconcileHours(sourceConfig, errors)
  refuseUnknownFields(sourceConfig, ["deployment", "baseUrl", "projects", "reconcileEveryHours"], "Jira", errors)
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, config: { deployment, baseUrl, projects: projects.map((key) => key.toUpperCase()), reconcileEveryHours } }
}

export const readJiraCredential = readAtlassianCredential("Jira")
export const parseJiraCredential = parseAtlassianCredential
