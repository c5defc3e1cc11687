import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { checkOutboundUrl, outboundPolicy } from "../../outbound/Guard"

/**
 * What Confluence and Jira share as Atlassian products: the deployment (Cloud or Data Center), the site's root URL
 * checked by the outbound guard, and the credential (Cloud: email + API token over Basic auth; Data Center: a
 * personal access token over Bearer). One reader for both kinds' configs and credentials.
 */
export type Deployment = "CLOUD" | "DATA_CENTER"

/** Cloud: `{email, apiToken}` (Basic auth); Data Center: `{token}` (a personal access token, Bearer). */
export type AtlassianCredential = { readonly email: string; readonly apiToken: string } | { readonly token: string }

/** `deployment` and `baseUrl` of a sourceConfig, with their field errors pushed to `errors`. */
export const readSiteFields = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings,
  errors: Array<FieldError>,
  example: string
): { readonly deployment: Deployment; readonly baseUrl: string } => {
  const deployment = sourceConfig.deployment
  if (deployment !== "CLOUD" && deployment !== "DATA_CENTER") errors.push({ path: "sourceConfig.deployment", message: "must be CLOUD or DATA_CENTER" })
  let baseUrl = ""
  if (typeof sourceConfig.baseUrl !== "string" || sourceConfig.baseUrl.length > 2048) {
    errors.push({ path: "sourceConfig.baseUrl", message: `must be the site's URL with its context path (e.g. ${example})` })
  } else {
    const checked = checkOutboundUrl(sourceConfig.baseUrl, outboundPolicy(settings))
    if (!checked.ok) errors.push({ path: "sourceConfig.baseUrl", message: checked.message })
    else if (checked.url.username || checked.url.password || checked.url.search || checked.url.hash) {
      errors.push({ path: "sourceConfig.baseUrl", message: "must have no user, query or fragment" })
    } else baseUrl = checked.url.href.replace(/\/+$/, "")
  }
  return { deployment: deployment as Deployment, baseUrl }
}

/** A list of keys (spaces, projects) at `sourceConfig.<field>`, each matching `pattern`, with their field errors. */
export const readKeyList = (
  sourceConfig: Readonly<Record<string, unknown>>,
  field: string,
  pattern: RegExp,
  max: number,
  noun: string,
  rule: string,
  errors: Array<FieldError>
): ReadonlyArray<string> => {
  const keys = sourceConfig[field]
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > max) {
    errors.push({ path: `sourceConfig.${field}`, message: `must list 1 to ${max} ${noun}s` })
    return []
  }
  keys.forEach((key, i) => {
    if (typeof key !== "string" || !pattern.test(key)) errors.push({ path: `sourceConfig.${field}.${i}`, message: `must be a ${noun} (${rule})` })
  })
  return [...new Set(keys.filter((key): key is string => typeof key === "string"))]
}

/** `reconcileEveryHours` (default 24): hours between the full walks that find deletions. */
export const readReconcileHours = (sourceConfig: Readonly<Record<string, unknown>>, errors: Array<FieldError>) => {
  const hours = sourceConfig.reconcileEveryHours
  if (hours !== undefined && (typeof hours !== "number" || !Number.isInteger(hours) || hours < 0 || hours > 24 * 30)) {
    errors.push({ path: "sourceConfig.reconcileEveryHours", message: "must be a whole number of hours from 0 (every crawl walks everything) to 720" })
  }
  return (hours as number | undefined) ?? 24
}

/** Unknown settings are refused by name, so a typo is not silently ignored. */
export const refuseUnknownFields = (sourceConfig: Readonly<Record<string, unknown>>, known: ReadonlyArray<string>, product: string, errors: Array<FieldError>) => {
  for (const key of Object.keys(sourceConfig)) {
    if (!known.includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: `is not a ${product} setting` })
  }
}

const MAX_SECRET = 4096

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readAtlassianCredential = (product: string) =>
  (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
    const message = `credential must be {"email", "apiToken"} (${product} Cloud) or {"token"} (a Data Center personal access token)`
    if (typeof credential !== "object" || credential === null || Array.isArray(credential)) return { ok: false, message }
    const fields = credential as Record<string, unknown>
    const keys = Object.keys(fields).sort().join(",")
    const text = (value: unknown) => typeof value === "string" && value.length > 0 && value.length <= MAX_SECRET && !/[\r\n]/.test(value)
    if (keys === "apiToken,email" && text(fields.email) && text(fields.apiToken) && (fields.email as string).includes("@")) {
      return { ok: true, secret: JSON.stringify({ email: fields.email, apiToken: fields.apiToken }) }
    }
    if (keys === "token" && text(fields.token)) return { ok: true, secret: JSON.stringify({ token: fields.token }) }
    return { ok: false, message }
  }

export const parseAtlassianCredential = (secret: string | null): AtlassianCredential | null => {
  if (secret === null) return null
  try {
    const parsed = JSON.parse(secret) as Record<string, unknown>
    if (typeof parsed.token === "string") return { token: parsed.token }
    if (typeof parsed.email === "string" && typeof parsed.apiToken === "string") return { email: parsed.email, apiToken: parsed.apiToken }
  } catch {
    // A credential that is not ours reads as none.
  }
  return null
}

/** The Authorization header: Basic for Cloud's email + API token, Bearer for a Data Center personal access token. */
export const authorizationOf = (credential: AtlassianCredential) =>
  "token" in credential ? `Bearer ${credential.token}` : `Basic ${Buffer.from(`${credential.email}:${credential.apiToken}`).toString("base64")}`

/** What differs between the Atlassian kinds' configs: the product's name, its URL example, and its list of keys. */
export interface AtlassianConfigShape {
  readonly product: string
  readonly example: string
  readonly listField: string
  readonly pattern: RegExp
  readonly max: number
  readonly noun: string
  readonly rule: string
}

/** `{deployment, baseUrl, <listField>, reconcileEveryHours?}`, the shape CONFLUENCE and JIRA share, or its field errors. */
export const readAtlassianConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings,
  shape: AtlassianConfigShape
): { readonly ok: true; readonly site: { readonly deployment: Deployment; readonly baseUrl: string; readonly keys: ReadonlyArray<string>; readonly reconcileEveryHours: number } } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { deployment, baseUrl } = readSiteFields(sourceConfig, settings, errors, shape.example)
  const keys = readKeyList(sourceConfig, shape.listField, shape.pattern, shape.max, shape.noun, shape.rule, errors)
  const reconcileEveryHours = readReconcileHours(sourceConfig, errors)
  refuseUnknownFields(sourceConfig, ["deployment", "baseUrl", shape.listField, "reconcileEveryHours"], shape.product, errors)
  return errors.length > 0 ? { ok: false, errors } : { ok: true, site: { deployment, baseUrl, keys, reconcileEveryHours } }
}
