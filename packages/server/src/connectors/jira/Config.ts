import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { type AtlassianCredential, type Deployment, parseAtlassianCredential, readAtlassianConfig, readAtlassianCredential } from "../atlassian/Site"

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
  const read = readAtlassianConfig(sourceConfig, settings, {
    product: "Jira", example: "https://acme.atlassian.net", listField: "projects", pattern: PROJECT_KEY, max: MAX_PROJECTS, noun: "project key", rule: "a letter, then letters, digits or '_'"
  })
  if (!read.ok) return read
  const { keys, ...site } = read.site
  return { ok: true, config: { ...site, projects: [...new Set(keys.map((key) => key.toUpperCase()))] } }
}

export const readJiraCredential = readAtlassianCredential("Jira")
export const parseJiraCredential = parseAtlassianCredential
