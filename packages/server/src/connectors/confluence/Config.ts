import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { checkOutboundUrl, outboundPolicy } from "../../outbound/Guard"

export type Deployment = "CLOUD" | "DATA_CENTER"

export interface ConfluenceConfig {
  readonly deployment: Deployment
  /** The site root with its context path, no trailing slash (`https://acme.atlassian.net/wiki`). */
  readonly baseUrl: string
  readonly spaces: ReadonlyArray<string>
  /** Hours between full walks, which find deletions (default 24); crawls in between read what changed since the last. */
  readonly reconcileEveryHours: number
}

/** Cloud: `{email, apiToken}` (Basic auth); Data Center: `{token}` (a personal access token, Bearer). */
export type ConfluenceCredential = { readonly email: string; readonly apiToken: string } | { readonly token: string }

const SPACE_KEY = /^[A-Za-z0-9~][A-Za-z0-9_~-]{0,254}$/
const MAX_SPACES = 500

export const readConfluenceConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings
): { readonly ok: true; readonly config: ConfluenceConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const deployment = sourceConfig.deployment
  if (deployment !== "CLOUD" && deployment !== "DATA_CENTER") errors.push({ path: "sourceConfig.deployment", message: "must be CLOUD or DATA_CENTER" })
  let baseUrl = ""
  if (typeof sourceConfig.baseUrl !== "string" || sourceConfig.baseUrl.length > 2048) {
    errors.push({ path: "sourceConfig.baseUrl", message: "must be the site's URL with its context path (e.g. https://acme.atlassian.net/wiki)" })
  } else {
    const checked = checkOutboundUrl(sourceConfig.baseUrl, outboundPolicy(settings))
    if (!checked.ok) errors.push({ path: "sourceConfig.baseUrl", message: checked.message })
    else if (checked.url.username || checked.url.password || checked.url.search || checked.url.hash) {
      errors.push({ path: "sourceConfig.baseUrl", message: "must have no user, query or fragment" })
    } else baseUrl = checked.url.href.replace(/\/+$/, "")
  }
  const spaces = sourceConfig.spaces
  if (!Array.isArray(spaces) || spaces.length === 0 || spaces.length > MAX_SPACES) {
    errors.push({ path: "sourceConfig.spaces", message: `must list 1 to ${MAX_SPACES} space keys` })
  } else {
    spaces.forEach((key, i) => {
      if (typeof key !== "string" || !SPACE_KEY.test(key)) errors.push({ path: `sourceConfig.spaces.${i}`, message: "must be a space key (letters, digits, '_', '-', '~')" })
    })
  }
  const hours = sourceConfig.reconcileEveryHours
  if (hours !== undefined && (typeof hours !== "number" || !Number.isInteger(hours) || hours < 0 || hours > 24 * 30)) {
    errors.push({ path: "sourceConfig.reconcileEveryHours", message: "must be a whole number of hours from 0 (every crawl walks everything) to 720" })
  }
  for (const key of Object.keys(sourceConfig)) {
    if (!["deployment", "baseUrl", "spaces", "reconcileEveryHours"].includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: "is not a Confluence setting" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    config: {
      deployment: deployment as Deployment,
      baseUrl,
      spaces: [...new Set(spaces as Array<string>)],
      reconcileEveryHours: (hours as number | undefined) ?? 24
    }
  }
}

const MAX_SECRET = 4096

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readConfluenceCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const message = "credential must be {\"email\", \"apiToken\"} (Confluence Cloud) or {\"token\"} (a Data Center personal access token)"
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

export const parseCredential = (secret: string | null): ConfluenceCredential | null => {
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
export const authorizationOf = (credential: ConfluenceCredential) =>
  "token" in credential ? `Bearer ${credential.token}` : `Basic ${Buffer.from(`${credential.email}:${credential.apiToken}`).toString("base64")}`
