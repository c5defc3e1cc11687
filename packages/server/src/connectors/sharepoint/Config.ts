import { createPrivateKey, X509Certificate } from "node:crypto"
import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { checkOutboundUrl, outboundPolicy } from "../../outbound/Guard"

export interface SharePointConfig {
  /** The Entra tenant: its id (a GUID) or a verified domain (`acme.onmicrosoft.com`). */
  readonly tenantId: string
  /** The app registration's Application (client) id. */
  readonly clientId: string
  /** The tenant's SharePoint origin (`https://acme.sharepoint.com`): SharePoint REST (site groups) is called there. */
  readonly sharepointHost: string
  /** Site ids (`host,siteCollectionId,webId`) or site URLs; empty: every site the app can find (Graph site search). */
  readonly sites: ReadonlyArray<string>
  /** Users (emails or UPNs) whose OneDrive is crawled. */
  readonly users: ReadonlyArray<string>
}

/** Secrets only: the certificate uploaded to the app registration and its private key, both PEM. */
export interface SharePointCredential {
  readonly certificatePem: string
  readonly privateKeyPem: string
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const DOMAIN = /^(?=.{3,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/i
const SITE_ID = /^[A-Za-z0-9.-]{1,253},[0-9a-f-]{36},[0-9a-f-]{36}$/i
const EMAIL = /^[^\s@,;<>"]{1,64}@[^\s@,;<>"]{1,253}$/
const MAX_SITES = 500
const MAX_USERS = 1000
const KEYS = ["tenantId", "clientId", "sharepointHost", "sites", "users"]

export const readSharePointConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings
): { readonly ok: true; readonly config: SharePointConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { tenantId, clientId, sharepointHost, sites, users } = sourceConfig
  if (typeof tenantId !== "string" || !(GUID.test(tenantId) || DOMAIN.test(tenantId))) {
    errors.push({ path: "sourceConfig.tenantId", message: "must be the Entra tenant id (a GUID) or its domain (acme.onmicrosoft.com)" })
  }
  if (typeof clientId !== "string" || !GUID.test(clientId)) errors.push({ path: "sourceConfig.clientId", message: "must be the app registration's Application (client) id, a GUID" })
  let host = ""
  if (typeof sharepointHost !== "string" || sharepointHost.length > 2048) {
    errors.push({ path: "sourceConfig.sharepointHost", message: "must be the tenant's SharePoint address (e.g. https://acme.sharepoint.com)" })
  } else {
    const checked = checkOutboundUrl(sharepointHost, outboundPolicy(settings))
    if (!checked.ok) errors.push({ path: "sourceConfig.sharepointHost", message: checked.message })
    else if (checked.url.username || checked.url.search || checked.url.hash || (checked.url.pathname !== "/" && checked.url.pathname !== "")) {
      errors.push({ path: "sourceConfig.sharepointHost", message: "must be an origin only (https://acme.sharepoint.com), no path, query or fragment" })
    } else host = checked.url.origin
  }
  if (sites !== undefined) {
    if (!Array.isArray(sites) || sites.length === 0 || sites.length > MAX_SITES) {
      errors.push({ path: "sourceConfig.sites", message: `must list 1 to ${MAX_SITES} site ids or URLs (leave it out for every site)` })
    } else {
      sites.forEach((site, i) => {
        if (typeof site !== "string" || !(SITE_ID.test(site) || siteUrlPath(site, host) !== null)) {
          errors.push({ path: `sourceConfig.sites.${i}`, message: "must be a site id (host,siteCollectionId,webId) or a site URL on sharepointHost" })
        }
      })
    }
  }
  if (users !== undefined) {
    if (!Array.isArray(users) || users.length > MAX_USERS) errors.push({ path: "sourceConfig.users", message: `must list at most ${MAX_USERS} emails` })
    else users.forEach((user, i) => {
      if (typeof user !== "string" || !EMAIL.test(user)) errors.push({ path: `sourceConfig.users.${i}`, message: "must be an email (or user principal name)" })
    })
  }
  for (const key of Object.keys(sourceConfig)) {
    if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: "is not a SharePoint setting" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    config: {
      tenantId: tenantId as string,
      clientId: clientId as string,
      sharepointHost: host,
      sites: [...new Set((sites as Array<string> | undefined) ?? [])],
      users: [...new Set(((users as Array<string> | undefined) ?? []).map((u) => u.toLowerCase()))]
    }
  }
}

/**
 * The host of the tenant's personal sites (OneDrives), where their site groups are read: `https://acme-my.sharepoint.com`
 * beside `https://acme.sharepoint.com` (SharePoint Online names it so, in the sovereign clouds too: sharepoint.us,
 * sharepoint-mil.us, sharepoint.de, sharepoint.cn). LORE_CONNECTOR_BASE_URLS
 * `sharepoint-my` replaces it (tests against a loopback tenant); null when sharepointHost is not a SharePoint Online name.
 */
export const personalHostOf = (sharepointHost: string, settings: LoreSettings): string | null => {
  const replaced = settings.connectorBaseUrls["sharepoint-my"]
  if (replaced) return new URL(replaced).origin
  const url = new URL(sharepointHost)
  const match = /^([a-z0-9][a-z0-9-]{0,62})\.(sharepoint\.(?:com|us|de|cn)|sharepoint-mil\.us)$/i.exec(url.hostname)
  return match && !match[1]!.endsWith("-my") ? `${url.protocol}//${match[1]}-my.${match[2]}${url.port ? `:${url.port}` : ""}` : null
}

/** A site URL's server-relative path when it is on the configured SharePoint host (`/sites/eng`), else null. */
export const siteUrlPath = (site: string, sharepointHost: string): string | null => {
  if (!sharepointHost) return null
  try {
    const url = new URL(site)
    if (url.origin !== sharepointHost || url.search || url.hash || url.username) return null
    const path = url.pathname.replace(/\/+$/, "")
    return /^\/(?:sites|teams|personal)\/[^/]{1,200}$/.test(path) ? path : null
  } catch {
    return null
  }
}

const MAX_PEM = 64 * 1024

/** The credential as stored (JSON), or a message that never repeats the value. The key must match the certificate. */
export const readSharePointCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const message = "credential must be {\"certificatePem\", \"privateKeyPem\"}: the certificate uploaded to the app registration and its private key, both PEM"
  if (typeof credential !== "object" || credential === null || Array.isArray(credential)) return { ok: false, message }
  const fields = credential as Record<string, unknown>
  if (Object.keys(fields).sort().join(",") !== "certificatePem,privateKeyPem") return { ok: false, message }
  const { certificatePem, privateKeyPem } = fields
  if (typeof certificatePem !== "string" || typeof privateKeyPem !== "string" || certificatePem.length > MAX_PEM || privateKeyPem.length > MAX_PEM) return { ok: false, message }
  try {
    const certificate = new X509Certificate(certificatePem)
    const key = createPrivateKey(privateKeyPem)
    if (key.asymmetricKeyType !== "rsa") return { ok: false, message: "the private key must be an RSA key (Entra signs client assertions with RS256)" }
    if (!certificate.checkPrivateKey(key)) return { ok: false, message: "the private key does not belong to the certificate" }
  } catch {
    return { ok: false, message: "the certificate or the private key is not valid PEM" }
  }
  return { ok: true, secret: JSON.stringify({ certificatePem, privateKeyPem }) }
}

export const parseSharePointCredential = (secret: string | null): SharePointCredential | null => {
  if (secret === null) return null
  try {
    const parsed = JSON.parse(secret) as Record<string, unknown>
    if (typeof parsed.certificatePem === "string" && typeof parsed.privateKeyPem === "string") {
      return { certificatePem: parsed.certificatePem, privateKeyPem: parsed.privateKeyPem }
    }
  } catch {
    // A credential that is not ours reads as none.
  }
  return null
}
