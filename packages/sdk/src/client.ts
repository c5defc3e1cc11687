import createClient, { type Client } from "openapi-fetch"
import { AdminArea } from "./areas/admin"
import { InvitationsArea } from "./areas/invitations"
import { CitationsArea, KnowledgeArea } from "./areas/knowledge"
import { KnowledgeSpacesArea } from "./areas/knowledgeSpaces"
import { MeArea } from "./areas/me"
import { PlatformArea } from "./areas/platform"
import { SessionArea } from "./areas/session"
import { SourcesArea } from "./areas/sources"
import { TokensArea } from "./areas/tokens"
import { CookieJar } from "./cookies"
import { type AuthMode, withCredentials } from "./credentials"
import type { paths } from "./generated/openapi"
import { type FetchLike, type RetryOptions, withRetry } from "./retry"
import { isBrowser } from "./runtime"
import { SDK_VERSION } from "./version"

/** The openapi-fetch client every area shares; also `lore.raw` for endpoints no area wraps yet. */
export type LoreFetchClient = Client<paths, "application/json">

export interface LoreClientOptions {
  /** The server's root, e.g. `http://127.0.0.1:8787` (paths already start with /api). */
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
  const baseUrl = options.baseUrl.replace(/\/+$/, "")
  const auth = options.auth ?? "token"
  const browser = isBrowser()
  const jar = auth === "cookie" && (options.cookieJar ?? !browser) ? new CookieJar() : undefined
  const userAgent = options.userAgent ?? (browser ? undefined : `lore-sdk/${SDK_VERSION}`)
  // Resolved per call, so a fetch replaced after creation (test doubles, polyfills) is still used.
  const baseFetch: FetchLike = options.fetch ?? ((request) => globalThis.fetch(request))
  const fetch = withCredentials(withRetry(baseFetch, options.retry ?? {}), { baseUrl, auth, token: options.token, jar })

  const raw: LoreFetchClient = createClient<paths, "application/json">({
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
    admin: new AdminArea(raw)
  }
}

export type LoreClient = ReturnType<typeof createLoreClient>
