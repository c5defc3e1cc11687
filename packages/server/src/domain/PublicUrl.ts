import type { HttpServerRequest } from "@effect/platform"
import { Option } from "effect"
import { BlockList, isIP } from "node:net"

/**
 * This server's public origin, for the absolute URLs Lore hands out (SCIM `meta.location`, the single sign-on
 * redirect URI). `LORE_PUBLIC_URL` decides when set. Otherwise the request's Host header, with https when
 * cookies are Secure; X-Forwarded-Host and X-Forwarded-Proto count only when the direct peer is one of
 * `LORE_TRUSTED_PROXIES` (anyone else could send them and make Lore point identity providers and browsers at
 * their own host).
 */
export interface PublicUrlSettings {
  /** LORE_PUBLIC_URL, already an origin (`parsePublicUrl`). */
  readonly publicUrl: Option.Option<string>
  /** LORE_TRUSTED_PROXIES: IP addresses and CIDR ranges (`parseTrustedProxies`). */
  readonly trustedProxies: ReadonlyArray<string>
  readonly secureCookies: boolean
}

/** `LORE_PUBLIC_URL` as an origin (`https://lore.example.com`), or an explanation of why it is not one. */
export const parsePublicUrl = (value: string): { readonly origin: string } | { readonly error: string } => {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    return { error: "LORE_PUBLIC_URL is not a URL" }
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return { error: "LORE_PUBLIC_URL must be an http or https URL" }
  if (url.username || url.password) return { error: "LORE_PUBLIC_URL must not contain credentials" }
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
    return { error: "LORE_PUBLIC_URL must be an origin (scheme, host and port only; Lore serves from /)" }
  }
  return { origin: url.origin }
}

/** The address and prefix length of one `LORE_TRUSTED_PROXIES` entry, or undefined when it is not an IP or CIDR. */
const proxyEntry = (entry: string): { readonly address: string; readonly prefix: number; readonly family: "ipv4" | "ipv6" } | undefined => {
  const [address, prefixText, extra] = entry.split("/")
  if (address === undefined || extra !== undefined) return undefined
  const version = isIP(address)
  if (version === 0) return undefined
  const max = version === 4 ? 32 : 128
  const prefix = prefixText === undefined ? max : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN
  if (!(prefix >= 0 && prefix <= max)) return undefined
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" }
}

/** `LORE_TRUSTED_PROXIES` (comma-separated IPs and CIDRs) as a list, or the first entry that is neither. */
export const parseTrustedProxies = (value: string): { readonly proxies: ReadonlyArray<string> } | { readonly error: string } => {
  const proxies = value.split(",").map((entry) => entry.trim()).filter((entry) => entry.length > 0)
  const invalid = proxies.find((entry) => proxyEntry(entry) === undefined)
  return invalid === undefined ? { proxies } : { error: `LORE_TRUSTED_PROXIES: ${JSON.stringify(invalid.slice(0, 60))} is not an IP address or CIDR range` }
}

/** A Host header value Lore will put in a URL: a DNS name or an IP literal, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

const firstValue = (header: string | undefined) => header?.split(",")[0]?.trim()

/** Whether the peer is a listed proxy (an IPv4 peer seen through an IPv6 socket is compared as IPv4). */
const trustedPeer = (proxies: BlockList, empty: boolean) => (peer: string | undefined) => {
  if (empty || peer === undefined) return false
  const address = peer.startsWith("::ffff:") && isIP(peer.slice(7)) === 4 ? peer.slice(7) : peer
  const version = isIP(address)
  return version !== 0 && proxies.check(address, version === 4 ? "ipv4" : "ipv6")
}

/** A function from a request to this server's public origin (`https://host[:port]`, no trailing slash). */
export const publicOrigin = (settings: PublicUrlSettings) => {
  const configured = Option.getOrUndefined(settings.publicUrl)
  const blockList = new BlockList()
  for (const entry of settings.trustedProxies) {
    const parsed = proxyEntry(entry)
    if (parsed) blockList.addSubnet(parsed.address, parsed.prefix, parsed.family)
  }
  const isTrusted = trustedPeer(blockList, settings.trustedProxies.length === 0)
  const defaultScheme = settings.secureCookies ? "https" : "http"

  return (request: HttpServerRequest.HttpServerRequest): string => {
    if (configured !== undefined) return configured
    const headers = request.headers
    let host = headers.host
    let scheme = defaultScheme
    if (isTrusted(Option.getOrUndefined(request.remoteAddress))) {
      const forwardedHost = firstValue(headers["x-forwarded-host"])
      const forwardedProto = firstValue(headers["x-forwarded-proto"])?.toLowerCase()
      if (forwardedHost) host = forwardedHost
      if (forwardedProto === "http" || forwardedProto === "https") scheme = forwardedProto
    }
    return `${scheme}://${host !== undefined && HOST.test(host) ? host.toLowerCase() : "localhost"}`
  }
}
