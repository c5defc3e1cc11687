import { Effect } from "effect"
import type { ConnectionTestResult, ConnectorKindModule, KindContext, Scope } from "./Kind"
import { crawlStep, describeWebCheckpoint, fetchOptions, fetchRobots, robotsOf, type WebContext } from "./web/Crawl"
import { fetchUrl } from "./web/Fetch"
import { readWebConfig, robotsToken, webPolicy, withinPrefixes } from "./web/WebConfig"

/** An Authorization header value: a scheme and its credentials (`Bearer abc`, `Basic dXNlcjpwYXNz`). */
const AUTHORIZATION = /^[A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*[ ]+[\x21-\x7e][\x20-\x7e]*$/

const failedTest = (errorCode: string, identityName: string | null = null): ConnectionTestResult =>
  ({ authenticated: false, accountName: null, identityName, canReadContent: false, errorCode })

const contextOf = (context: KindContext, signal?: AbortSignal): WebContext | null => {
  const read = readWebConfig(context.sourceConfig, webPolicy(context.settings))
  return read.ok ? { config: read.config, credential: context.credential, settings: context.settings, ...(signal ? { signal } : {}) } : null
}

/** Whether a URL answers within the prefixes: the error code when not (no credential or body ever in it). */
const probe = async (context: WebContext, url: string): Promise<string | null> => {
  const origin = new URL(url).origin
  const robots = await fetchRobots(context, origin)
  if ("_tag" in robots) return robots.code === "ADDRESS_NOT_ALLOWED" ? "ADDRESS_NOT_ALLOWED" : "SITE_UNREACHABLE"
  if (robotsOf(origin, robots.text).isDisallowed(url, robotsToken(context.config.userAgent))) return "BLOCKED_BY_ROBOTS"
  const reply = await fetchUrl(new URL(url), fetchOptions(context, (next) => withinPrefixes(next.href, context.config.prefixes)))
  if (reply._tag === "Failure") {
    return reply.code === "ADDRESS_NOT_ALLOWED" ? "ADDRESS_NOT_ALLOWED" : reply.code === "REDIRECT_NOT_FOLLOWED" || reply.code === "TOO_MANY_REDIRECTS" ? "REDIRECTS_OUTSIDE_PREFIXES" : "SITE_UNREACHABLE"
  }
  if (reply.status === 401 || reply.status === 403) return "AUTHENTICATION_FAILED"
  if (reply.status === 404 || reply.status === 410) return "NOT_FOUND"
  if (reply.status < 200 || reply.status >= 300) return "SITE_UNREACHABLE"
  return null
}

/**
 * WEB: crawls a site from its sitemaps and its links within the configured URL prefixes, honouring robots.txt
 * (Disallow/Allow, Crawl-delay) and re-crawling with conditional GETs; HTML pages give their main content, and
 * PDF, plain-text, Markdown and Word files linked within the prefixes are indexed as they are. Pages have no
 * source ACL: everyone with a grant on the knowledge space reads them. The credential, optional, is an
 * Authorization header value sent to the site (a private wiki behind a token or basic auth).
 */
export const WebKind: ConnectorKindModule = {
  sourceSystem: "WEB",
  displayName: "Web site (crawler)",
  validateConfig: (sourceConfig, settings) => {
    const read = readWebConfig(sourceConfig, webPolicy(settings))
    return read.ok ? [] : read.errors
  },
  readCredential: (credential) =>
    typeof credential !== "string"
      ? { ok: false, message: "credential must be a string: the Authorization header value to send (e.g. \"Bearer <token>\" or \"Basic <base64>\")" }
      : credential.length > 4096 || !AUTHORIZATION.test(credential)
        ? { ok: false, message: "credential must be an Authorization header value: a scheme, a space and the credentials (e.g. \"Bearer <token>\"), at most 4096 printable characters" }
        : { ok: true, secret: credential },
  testCredentials: (context) =>
    Effect.promise(async () => {
      const web = contextOf(context)
      if (!web) return failedTest("INVALID_CONFIG")
      const error = await probe(web, web.config.startUrls[0]!)
      if (error) return failedTest(error, web.config.userAgent)
      return { authenticated: true, accountName: new URL(web.config.startUrls[0]!).host, identityName: web.config.userAgent, canReadContent: true, errorCode: null }
    }),
  listScopes: (context) =>
    Effect.promise(async () => {
      const web = contextOf(context)
      if (!web) return []
      const scopes: Array<Scope> = []
      for (const prefix of web.config.prefixes) {
        // A prefix is probed at the first start URL within it, else at the prefix itself.
        const at = web.config.startUrls.find((url) => url.startsWith(prefix)) ?? prefix
        const error = await probe(web, at)
        scopes.push({
          key: prefix,
          displayName: prefix,
          reachable: error === null || error === "BLOCKED_BY_ROBOTS",
          admissible: error !== "BLOCKED_BY_ROBOTS" && error !== "ADDRESS_NOT_ALLOWED",
          instruction: error === null ? null : instructions[error] ?? `The site answered ${error} at ${at}`
        })
      }
      return scopes
    }),
  describeCheckpoint: describeWebCheckpoint,
  crawl: (context, checkpoint) =>
    Effect.promise(async (signal) => {
      const web = contextOf(context, signal)
      if (!web) {
        return {
          documents: [], groups: [], deleted: [], checkpoint, done: true,
          failures: [{ code: "INVALID_CONFIG", message: "The WEB configuration is no longer valid on this server (see PUT /api/admin/connectors/WEB/{key})", fatal: true }]
        }
      }
      return crawlStep(web, checkpoint)
    })
}

const instructions: Record<string, string> = {
  BLOCKED_BY_ROBOTS: "The site's robots.txt disallows this URL for the configured user agent",
  ADDRESS_NOT_ALLOWED: "The host is a loopback or private address; this server crawls only public addresses and the private hosts listed in LORE_ALLOWED_PRIVATE_HOSTS",
  SITE_UNREACHABLE: "The site did not answer (or answered with an error); check the URL and that the server can reach it",
  AUTHENTICATION_FAILED: "The site refused the request: set the credential (an Authorization header value) or check it",
  NOT_FOUND: "The URL answered 404: check the start URL or prefix",
  REDIRECTS_OUTSIDE_PREFIXES: "The URL redirects outside the configured prefixes; add the target to prefixes or start elsewhere"
}
