import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import http from "node:http"
import https from "node:https"
import type { LookupFunction } from "node:net"
import { Agent, buildConnector, fetch as undiciFetch } from "undici"
import type { LoreSettings } from "../Config"
import { quoteInput } from "../domain/Echo"
import { ipLiteral, isPublicAddress, obviouslyPrivateHost } from "./Addresses"

/**
 * The one outbound guard (docs/security.md, "Outbound requests"): every fetch Lore makes on a caller's behalf
 * (git for skill imports and the GIT connector, WEB crawls, OIDC discovery, connector APIs) reaches only public
 * addresses, unless an administrator allowed a private host by name (LORE_ALLOWED_PRIVATE_HOSTS).
 * Three walls: the URL (scheme, credentials, private IP literals) before anything runs; the resolved address at
 * connect time (so a public-looking name that resolves to 127.0.0.1 fails, and DNS rebinding between a check and
 * the connection gains nothing); and each redirect hop, which goes through both again.
 * Gateways an administrator configured and LORE_EMBEDDING_* are not guarded: a local model server is a
 * documented use, and only administrators (or the server's environment) choose those addresses.
 */

export interface OutboundPolicy {
  /** "host" or "host:port" entries ("[::1]:8080" for IPv6), lower-case; "*" allows every host (development only). */
  readonly allowedPrivateHosts: ReadonlyArray<string>
}

export const outboundPolicy = (settings: LoreSettings): OutboundPolicy => ({ allowedPrivateHosts: settings.allowedPrivateHosts })

export type OutboundRefusalCode = "ADDRESS_NOT_ALLOWED" | "INVALID_URL"

/** The error a guarded client rejects with when the guard refuses; `code` is stable. */
export class OutboundRefused extends Error {
  readonly errno = 0
  constructor(readonly code: OutboundRefusalCode, message: string) {
    super(message)
    this.name = "OutboundRefused"
  }
}

const defaultPort = (protocol: string) => (protocol === "https:" ? 443 : 80)

const splitEntry = (entry: string): { readonly host: string; readonly port: number | null } => {
  if (entry.startsWith("[")) {
    const close = entry.indexOf("]")
    const rest = entry.slice(close + 1)
    return { host: entry.slice(0, close + 1), port: rest.startsWith(":") ? Number(rest.slice(1)) : null }
  }
  const colon = entry.lastIndexOf(":")
  return colon > 0 && entry.indexOf(":") === colon ? { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) } : { host: entry, port: null }
}

/** Whether an administrator allowed this host (as written in the URL: `[::1]` for IPv6) on this port. */
export const privateHostAllowed = (policy: OutboundPolicy, hostname: string, port: number | undefined): boolean => {
  const host = hostname.toLowerCase()
  const bracketed = ipLiteral(host) !== null && host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
  return policy.allowedPrivateHosts.some((entry) => {
    if (entry === "*") return true
    const allowed = splitEntry(entry)
    return allowed.host === bracketed && (allowed.port === null || allowed.port === port)
  })
}

type UrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly code: OutboundRefusalCode; readonly message: string }

/**
 * What can be said of a URL without resolving it: http(s) only, no credentials in it, no private IP literal or
 * localhost name unless allowed. Messages quote the host at most, never the whole URL (it may hold a secret).
 */
export const checkOutboundUrl = (input: string | URL, policy: OutboundPolicy): UrlCheck => {
  let url: URL
  try {
    url = typeof input === "string" ? new URL(input.trim()) : new URL(input.href)
  } catch {
    return { ok: false, code: "INVALID_URL", message: "The address is not a valid URL" }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return { ok: false, code: "ADDRESS_NOT_ALLOWED", message: `The ${quoteInput(url.protocol.replace(/:$/, ""), 40)} scheme is not allowed: use http:// or https://` }
  }
  if (url.username !== "" || url.password !== "") {
    return { ok: false, code: "ADDRESS_NOT_ALLOWED", message: "Credentials do not belong in the address" }
  }
  const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port)
  if (obviouslyPrivateHost(url.hostname) && !privateHostAllowed(policy, url.hostname, port)) {
    return { ok: false, code: "ADDRESS_NOT_ALLOWED", message: `${quoteInput(url.hostname, 100)} is a loopback or private address, which this server does not reach (LORE_ALLOWED_PRIVATE_HOSTS)` }
  }
  return { ok: true, url }
}

const refusedAddress = (hostname: string, address: string) =>
  new OutboundRefused("ADDRESS_NOT_ALLOWED", `${quoteInput(hostname, 100)} resolves to ${address}, a loopback or private address, which this server does not reach (LORE_ALLOWED_PRIVATE_HOSTS)`)

/** The addresses a name resolves to, or the refusal when one of them is not public (and the name is not allowed). */
const checkedAddresses = (
  hostname: string,
  resolved: ReadonlyArray<LookupAddress>,
  policy: OutboundPolicy,
  port: number | undefined
): OutboundRefused | null => {
  if (privateHostAllowed(policy, hostname, port)) return null
  const blocked = resolved.find((entry) => !isPublicAddress(entry.address))
  return blocked ? refusedAddress(hostname, blocked.address) : null
}

/**
 * dns.lookup that refuses a name when any of its addresses is not public: checked on what the socket will
 * connect to. `port` lets `host:port` entries of the policy match (an entry without a port matches any).
 */
export const guardedLookup = (policy: OutboundPolicy, port?: number): LookupFunction => (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, resolved) => {
    if (error) return callback(error, "", 0)
    const addresses = resolved as unknown as Array<LookupAddress>
    const refusal = checkedAddresses(hostname, addresses, policy, port)
    if (refusal) return callback(refusal as unknown as NodeJS.ErrnoException, "", 0)
    if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), "", 0)
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: Array<LookupAddress>) => void)(null, addresses)
    return callback(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/** The refusal for a connection to an IP literal (which skips DNS, so the lookup never sees it), or null. */
const literalRefusal = (host: string, port: number, policy: OutboundPolicy): OutboundRefused | null => {
  const literal = ipLiteral(host)
  if (literal === null || isPublicAddress(literal) || privateHostAllowed(policy, host, port)) return null
  return new OutboundRefused("ADDRESS_NOT_ALLOWED", `${literal} is a loopback or private address, which this server does not reach (LORE_ALLOWED_PRIVATE_HOSTS)`)
}

/**
 * Every address of a URL's host, each checked (a refusal when any is private and the host is not allowed):
 * what a pinned connection may use (git's `http.curloptResolve` takes them all, so IPv4/IPv6 fallback works).
 */
export const resolveCheckedAll = (url: URL, policy: OutboundPolicy): Promise<ReadonlyArray<{ readonly address: string; readonly family: 4 | 6 }>> =>
  new Promise((resolve, reject) => {
    const checked = checkOutboundUrl(url, policy)
    if (!checked.ok) return reject(new OutboundRefused(checked.code, checked.message))
    const port = url.port === "" ? defaultPort(url.protocol) : Number(url.port)
    const literal = ipLiteral(url.hostname)
    if (literal !== null) {
      const refusal = literalRefusal(url.hostname, port, policy)
      return refusal ? reject(refusal) : resolve([{ address: literal, family: literal.includes(":") ? 6 : 4 }])
    }
    dnsLookup(url.hostname, { all: true }, (error, addresses) => {
      if (error) return reject(error)
      const refusal = checkedAddresses(url.hostname, addresses, policy, port)
      if (refusal) return reject(refusal)
      if (addresses.length === 0) return reject(Object.assign(new Error(`${url.hostname} has no address`), { code: "ENOTFOUND" }))
      resolve(addresses.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 as const : 4 as const })))
    })
  })

/**
 * The address to pin a connection to: the URL checked, the name resolved once and every address checked; the
 * caller connects to this address only, so DNS cannot change in between.
 */
export const resolveChecked = (url: URL, policy: OutboundPolicy): Promise<{ readonly address: string; readonly family: 4 | 6 }> =>
  resolveCheckedAll(url, policy).then((addresses) => addresses[0]!)

/** The guard's refusal somewhere in an error's cause chain (fetch wraps connect errors in `TypeError: fetch failed`). */
export const outboundRefusal = (error: unknown): OutboundRefused | null => {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== null && typeof current === "object"; depth++) {
    if (current instanceof OutboundRefused) return current
    if ((current as { code?: unknown }).code === "ADDRESS_NOT_ALLOWED") {
      return new OutboundRefused("ADDRESS_NOT_ALLOWED", (current as Error).message)
    }
    current = (current as { cause?: unknown }).cause
  }
  return null
}

/** An undici dispatcher whose every connection goes through the guard (IP literals and resolved names). */
const guardedDispatcher = (policy: OutboundPolicy) => {
  const connectors = new Map<number, buildConnector.connector>()
  const connectorFor = (port: number) => {
    let connector = connectors.get(port)
    if (!connector) {
      connector = buildConnector({ lookup: guardedLookup(policy, port) } as buildConnector.BuildOptions)
      connectors.set(port, connector)
    }
    return connector
  }
  return new Agent({
    connect: (options, callback) => {
      const port = Number(options.port) || defaultPort(options.protocol)
      const refusal = literalRefusal(options.hostname, port, policy)
      if (refusal) return callback(refusal, null)
      return connectorFor(port)(options, callback)
    }
  })
}

const redirectStatuses = new Set([301, 302, 303, 307, 308])

/** A body that can be sent again on a 307/308 hop (a stream cannot). */
const replayable = (body: unknown) =>
  body === undefined || body === null || typeof body === "string" || body instanceof Uint8Array || body instanceof ArrayBuffer ||
  body instanceof URLSearchParams || (typeof Blob !== "undefined" && body instanceof Blob)

/**
 * A fetch with the guard on: each URL checked before the request, the resolved address at connect time, and
 * redirects followed here (redirect: "manual") so each hop is checked the same way; at most `maxRedirects`
 * hops, the whole exchange (body included) within `timeoutMs`. A refusal rejects with an OutboundRefused
 * (`code` "ADDRESS_NOT_ALLOWED"). Answers are the global Response class, with `url` set to the last hop.
 */
export const guardedFetch = (
  policy: OutboundPolicy,
  options?: { readonly maxRedirects?: number; readonly timeoutMs?: number }
): typeof globalThis.fetch => {
  const dispatcher = guardedDispatcher(policy)
  const maxRedirects = options?.maxRedirects ?? 5
  const timeoutMs = options?.timeoutMs ?? 30_000
  const guarded = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : null
    let target: string | URL = request ? request.url : input as string | URL
    let method = (init?.method ?? request?.method ?? "GET").toUpperCase()
    const headers = new Headers(init?.headers ?? request?.headers)
    let body: unknown = init?.body ?? (request && request.body ? await request.arrayBuffer() : undefined)
    const mode = init?.redirect ?? request?.redirect ?? "follow"
    const signal = AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(init?.signal ? [init.signal] : request?.signal ? [request.signal] : [])])
    for (let hop = 0; ; hop++) {
      const checked = checkOutboundUrl(target, policy)
      if (!checked.ok) throw new OutboundRefused(checked.code, checked.message)
      let answer: Awaited<ReturnType<typeof undiciFetch>>
      try {
        answer = await undiciFetch(checked.url, {
          method,
          headers: Object.fromEntries(headers),
          body: body as never,
          ...(body instanceof ReadableStream ? { duplex: "half" as const } : {}),
          redirect: "manual",
          signal,
          dispatcher
        })
      } catch (error) {
        throw outboundRefusal(error) ?? error
      }
      const location = answer.headers.get("location")
      if (redirectStatuses.has(answer.status) && location !== null && mode !== "manual") {
        await answer.body?.cancel().catch(() => undefined)
        if (mode === "error") throw new TypeError(`${checked.url.origin} redirected, and redirects were refused`)
        if (hop >= maxRedirects) throw new TypeError(`More than ${maxRedirects} redirects`)
        const next = new URL(location, checked.url)
        if (next.origin !== checked.url.origin) {
          // Credentials meant for one origin do not travel to another.
          headers.delete("authorization")
          headers.delete("cookie")
          headers.delete("proxy-authorization")
        }
        if (answer.status === 303 || ((answer.status === 301 || answer.status === 302) && method === "POST")) {
          if (method !== "HEAD") method = "GET"
          body = undefined
          headers.delete("content-type")
          headers.delete("content-length")
        } else if (!replayable(body)) {
          throw new TypeError("A redirect asked to send a streamed body again")
        }
        target = next
        continue
      }
      const response = new Response(answer.body as ReadableStream<Uint8Array> | null, {
        status: answer.status,
        statusText: answer.statusText,
        headers: answer.headers as unknown as HeadersInit
      })
      Object.defineProperty(response, "url", { value: checked.url.href })
      Object.defineProperty(response, "redirected", { value: hop > 0 })
      return response
    }
  }
  return guarded as typeof globalThis.fetch
}

/** Agents for node:http-based clients (axios, gaxios): every connection through the guard. */
export const guardedAgents = (policy: OutboundPolicy): { readonly http: http.Agent; readonly https: https.Agent } => {
  type CreateConnection = (options: Record<string, unknown>, callback: (error: Error | null, socket?: unknown) => void) => unknown
  const guard = (agent: http.Agent, fallbackPort: number) => {
    const base = (agent as unknown as { createConnection: CreateConnection }).createConnection.bind(agent)
    ;(agent as unknown as { createConnection: CreateConnection }).createConnection = (options, callback) => {
      const host = String(options.host ?? options.hostname ?? "")
      const port = Number(options.port) || fallbackPort
      const refusal = literalRefusal(host, port, policy)
      if (refusal) {
        process.nextTick(callback, refusal)
        return undefined
      }
      return base({ ...options, lookup: guardedLookup(policy, port) }, callback)
    }
    return agent
  }
  return {
    http: guard(new http.Agent({ keepAlive: true }), 80),
    https: guard(new https.Agent({ keepAlive: true }), 443) as https.Agent
  }
}
