import createClient from "openapi-fetch"
import { AdminArea } from "./areas/admin"
import { AssetsArea } from "./areas/assets"
import { AssistantArea } from "./areas/assistant"
import { GraphArea } from "./areas/graph"
import { InvitationsArea } from "./areas/invitations"
import { CitationsArea, KnowledgeArea } from "./areas/knowledge"
import { KnowledgeSpacesArea } from "./areas/knowledgeSpaces"
import { MeArea } from "./areas/me"
import { PlatformArea } from "./areas/platform"
import { SessionArea } from "./areas/session"
import { SourcesArea } from "./areas/sources"
import { TokensArea } from "./areas/tokens"
import { IndexingArea } from "./areas/indexing"
import { CookieJar } from "./cookies"
import { type AuthMode, withCredentials } from "./credentials"
import { LoreApiError } from "./errors"
import type { LoreFetchClient } from "./fetchClient"
import type { paths } from "./generated/openapi"
import { type FetchLike, type RetryOptions, withRetry } from "./retry"
import { isBrowser } from "./runtime"
import { SDK_VERSION } from "./version"

export type { LoreFetchClient } from "./fetchClient"

export interface LoreClientOptions {
  /**
   * The server's root, e.g. `http://127.0.0.1:8787` (paths already start with /api): an absolute http(s)
   * URL without query or fragment, else createLoreClient throws a LoreApiError of code INVALID_BASE_URL.
   */
  readonly baseUrl: string
  /** A personal access token (`lore_pat_...`), sent as a bearer token in "token" mode. */
  readonly token?: string | undefined
  /** The fetch to use (default: the global one); called with a Request. */
  readonly fetch?: FetchLike | undefined
  /** "token" (default): bearer token. "cookie": a session from `session.signIn`, with CSRF handled. */
  readonly auth?: AuthMode | undefined
  /** Retries of idempotent requests on 429/502/503/504 and network errors; `false` turns them off. */
  readonly retry?: RetryOptions | false | undefined
  /** Sent with every request. */
  readonly headers?: Record<string, string> | undefined
  /** Outside browsers, defaults to `lore-sdk/<version>`; browsers set their own. */
  readonly userAgent?: string | undefined
  /** Keep cookies in the client (default: only where the runtime has no cookie store of its own). */
  readonly cookieJar?: boolean | undefined
}

/**
 * A Lore API client: `lore.me.get()`, `lore.tokens.create(...)`, ... Every method resolves to the
 * response body or throws a LoreApiError. Adding an area: a class in src/areas/ and one line below.
 */
export const createLoreClient = (options: LoreClientOptions) => {
  const baseUrl = checkedBaseUrl(options.baseUrl)
  const auth = options.auth ?? "token"
  const browser = isBrowser()
  const jar = auth === "cookie" && (options.cookieJar ?? !browser) ? new CookieJar() : undefined
  const userAgent = options.userAgent ?? (browser ? undefined : `lore-sdk/${SDK_VERSION}`)
  // Resolved per call, so a fetch replaced after creation (test doubles, polyfills) is still used.
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request))
  const fetch = withCredentials(withRetry(baseFetch, options.retry ?? {}), { baseUrl, auth, token: options.token, jar })

  const raw: LoreFetchClient = createClient<paths>({
    baseUrl,
    fetch,
    headers: { accept: "application/json, application/problem+json", ...(userAgent ? { "user-agent": userAgent } : {}), ...options.headers },
    ...(auth === "cookie" ? { credentials: "include" as const } : {})
  })

  return {
    baseUrl,
    raw,
    platform: new PlatformArea(raw),
    session: new SessionArea(raw),
    me: new MeArea(raw),
    tokens: new TokensArea(raw),
    knowledgeSpaces: new KnowledgeSpacesArea(raw),
    invitations: new InvitationsArea(raw),
    sources: new SourcesArea(raw),
    knowledge: new KnowledgeArea(raw),
    citations: new CitationsArea(raw),
    /** The knowledge graph: index jobs, explorer, curations, export, per-space settings. */
    graph: new GraphArea(raw),
    /** The assistant: chat, conversations, feedback, starters, tools; `files` (private chat attachments), `evidence`. */
    assistant: new AssistantArea(raw),
    assets: new AssetsArea(raw),
    admin: new AdminArea(raw),
    /** The indexing API of PUSH connections, authenticated per call with the connection's credential. */
    indexing: new IndexingArea(raw)
  }
}

export type LoreClient = ReturnType<typeof createLoreClient>

const invalidBaseUrl = (detail: string) => LoreApiError.client("INVALID_BASE_URL", "Invalid Base URL", detail)

/**
 * Refuses at construction what would otherwise fail on the first request as a confusing NETWORK_ERROR
 * (`localhost:8787`, which parses as the scheme `localhost:`) or silently build wrong URLs (a query or
 * fragment, which the /api paths would be appended to). Answers the URL without trailing slashes.
 */
const checkedBaseUrl = (value: unknown): string => {
  const example = "give the server's root with its scheme, e.g. http://127.0.0.1:8787"
  if (typeof value !== "string" || value.trim() === "") throw invalidBaseUrl(`baseUrl is required: ${example}`)
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalidBaseUrl(`baseUrl is not an absolute URL: ${example}`)
  }
  // Not echoed whole: a URL may carry credentials (user:password@host).
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidBaseUrl(`baseUrl has the scheme '${url.protocol}', not http: or https:; ${example}`)
  if (url.search || url.hash) throw invalidBaseUrl(`baseUrl must not have a query or fragment: ${example}`)
  return value.trim().replace(/\/+$/, "")
}
