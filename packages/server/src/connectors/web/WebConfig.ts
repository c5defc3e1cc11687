import type { LoreSettings } from "../../Config"
import { quoteInput } from "../../domain/Echo"
import type { FieldError } from "../../domain/Errors"
import { Classification } from "../../domain/Model"
import { checkOutboundUrl, type OutboundPolicy, outboundPolicy } from "../../outbound/Guard"

export const DEFAULT_MAX_PAGES = 1000
export const MAX_MAX_PAGES = 10_000
export const DEFAULT_USER_AGENT = "LoreBot/1.0"

/** A WEB connection's sourceConfig, read and normalized. */
export interface WebConfig {
  readonly startUrls: ReadonlyArray<string>
  /** URL prefixes the crawl stays within (pages, redirects, links, sitemap entries). */
  readonly prefixes: ReadonlyArray<string>
  readonly sitemap: boolean
  readonly maxPages: number
  readonly userAgent: string
  readonly classification: Classification
}

const KEYS = ["baseUrl", "startUrls", "prefixes", "sitemap", "maxPages", "userAgent", "classification", "description"]

/**
 * The canonical form of a page's URL, its external id: scheme and host lower-cased (URL does that), default
 * port and fragment dropped, an empty path written `/`; the path and query are kept as the site wrote them
 * (not sorted, not case-folded: servers may tell them apart).
 */
export const canonicalUrl = (url: URL | string): string => {
  const copy = new URL(url)
  copy.hash = ""
  return copy.href
}

/** The directory of a URL (up to its last `/`): the default prefix of a start URL. */
const directoryOf = (url: URL) => {
  const copy = new URL(url)
  copy.hash = ""
  copy.search = ""
  copy.pathname = copy.pathname.slice(0, copy.pathname.lastIndexOf("/") + 1)
  return copy.href
}

/**
 * What WEB crawls may reach: the shared outbound policy (LORE_ALLOWED_PRIVATE_HOSTS), or every host when
 * LORE_WEB_ALLOW_PRIVATE_ADDRESSES=1 (kept for existing deployments crawling an intranet; prefer the list).
 */
export const webPolicy = (settings: LoreSettings): OutboundPolicy =>
  settings.webCrawl.allowPrivateAddresses ? { allowedPrivateHosts: ["*"] } : outboundPolicy(settings)

export const withinPrefixes = (url: string, prefixes: ReadonlyArray<string>) => prefixes.some((prefix) => url.startsWith(prefix))

const readUrl = (value: unknown, path: string, errors: Array<FieldError>, policy: OutboundPolicy): URL | null => {
  if (typeof value !== "string" || value.length === 0 || value.length > 2000) {
    errors.push({ path, message: "must be an http(s) URL of at most 2000 characters" })
    return null
  }
  let url: URL
  try {
    url = new URL(value)
  } catch {
    errors.push({ path, message: "must be an absolute http(s) URL" })
    return null
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") errors.push({ path, message: "must be an http or https URL" })
  else if (url.username || url.password) errors.push({ path, message: "must not carry a user or password (set the connection's credential instead)" })
  else if (!checkOutboundUrl(url, policy).ok) {
    errors.push({ path, message: "names a loopback or private address, which this server does not crawl (LORE_ALLOWED_PRIVATE_HOSTS)", code: "ADDRESS_NOT_ALLOWED" })
  } else return url
  return null
}

/** Reads a sourceConfig: the normalized config, or field errors (paths `sourceConfig.<field>`). */
export const readWebConfig = (config: Readonly<Record<string, unknown>>, policy: OutboundPolicy):
  { readonly ok: true; readonly config: WebConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  for (const key of Object.keys(config)) {
    if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${quoteInput(key, 100)}`, message: `is not a setting of WEB connections (allowed: ${KEYS.join(", ")})` })
  }
  const starts: Array<URL> = []
  if (config.baseUrl !== undefined) {
    const url = readUrl(config.baseUrl, "sourceConfig.baseUrl", errors, policy)
    if (url) starts.push(url)
  }
  if (config.startUrls !== undefined) {
    if (!Array.isArray(config.startUrls) || config.startUrls.length === 0 || config.startUrls.length > 100) {
      errors.push({ path: "sourceConfig.startUrls", message: "must be a list of 1 to 100 URLs" })
    } else {
      config.startUrls.forEach((value, i) => {
        const url = readUrl(value, `sourceConfig.startUrls[${i}]`, errors, policy)
        if (url) starts.push(url)
      })
    }
  }
  if (config.baseUrl === undefined && config.startUrls === undefined) errors.push({ path: "sourceConfig.baseUrl", message: "is required (or startUrls): the site to crawl" })

  let prefixes: Array<string> = []
  if (config.prefixes !== undefined) {
    if (!Array.isArray(config.prefixes) || config.prefixes.length === 0 || config.prefixes.length > 100) {
      errors.push({ path: "sourceConfig.prefixes", message: "must be a list of 1 to 100 URL prefixes" })
    } else {
      config.prefixes.forEach((value, i) => {
        const url = readUrl(value, `sourceConfig.prefixes[${i}]`, errors, policy)
        if (url) prefixes.push(canonicalUrl(url))
      })
    }
  } else prefixes = [...new Set(starts.map(directoryOf))]
  starts.forEach((url, i) => {
    if (prefixes.length > 0 && !withinPrefixes(canonicalUrl(url), prefixes)) {
      errors.push({ path: config.startUrls !== undefined ? `sourceConfig.startUrls[${i}]` : "sourceConfig.baseUrl", message: "is outside every prefix" })
    }
  })

  if (config.sitemap !== undefined && typeof config.sitemap !== "boolean") errors.push({ path: "sourceConfig.sitemap", message: "must be true or false" })
  const maxPages = config.maxPages ?? DEFAULT_MAX_PAGES
  if (typeof maxPages !== "number" || !Number.isInteger(maxPages) || maxPages < 1 || maxPages > MAX_MAX_PAGES) {
    errors.push({ path: "sourceConfig.maxPages", message: `must be a whole number from 1 to ${MAX_MAX_PAGES}` })
  }
  const userAgent = config.userAgent ?? DEFAULT_USER_AGENT
  if (typeof userAgent !== "string" || !/^[A-Za-z0-9][\x20-\x7e]{0,199}$/.test(userAgent)) {
    errors.push({ path: "sourceConfig.userAgent", message: "must be 1 to 200 printable ASCII characters starting with a letter or digit" })
  }
  const classification = config.classification ?? "INTERNAL"
  if (typeof classification !== "string" || !(Classification.literals as ReadonlyArray<string>).includes(classification)) {
    errors.push({ path: "sourceConfig.classification", message: `must be one of ${Classification.literals.join(", ")}` })
  }
  if (config.description !== undefined && (typeof config.description !== "string" || config.description.length > 500)) {
    errors.push({ path: "sourceConfig.description", message: "must be a string of at most 500 characters" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    config: {
      startUrls: [...new Set(starts.map(canonicalUrl))],
      prefixes,
      sitemap: config.sitemap !== false,
      maxPages: maxPages as number,
      userAgent: userAgent as string,
      classification: classification as Classification
    }
  }
}

/** The robots.txt product token of a user agent (`LoreBot/1.0 (+https://...)` -> `lorebot`). */
export const robotsToken = (userAgent: string) => (userAgent.split(/[\s/]/)[0] ?? userAgent).toLowerCase()
