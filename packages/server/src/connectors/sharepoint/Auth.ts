import { ConfidentialClientApplication, type INetworkModule, type NetworkRequestOptions, type NetworkResponse } from "@azure/msal-node"
import { createHash, X509Certificate } from "node:crypto"
import type { LoreSettings } from "../../Config"
import type { SharePointConfig, SharePointCredential } from "./Config"

export const GRAPH_ORIGIN = "https://graph.microsoft.com"
export const LOGIN_ORIGIN = "https://login.microsoftonline.com"

/** Graph's and Entra's origins: fixed, replaced only by the server setting LORE_CONNECTOR_BASE_URLS (`graph`, `login`). */
export const vendorOrigins = (settings: LoreSettings) => ({
  graph: settings.connectorBaseUrls.graph ?? GRAPH_ORIGIN,
  login: settings.connectorBaseUrls.login ?? LOGIN_ORIGIN
})

/** Why no token could be had: the credential refused (AUTHENTICATION_FAILED), or Entra unreachable or not allowed. */
export class TokenError extends Error {
  constructor(readonly code: "AUTHENTICATION_FAILED" | "SOURCE_UNREACHABLE" | "ADDRESS_NOT_ALLOWED", message: string) {
    super(message)
  }
}

const MAX_TOKEN_RESPONSE = 256 * 1024

/**
 * msal-node's HTTP client replaced by one over the guarded fetch: msal insists on an https authority, so it is given
 * Entra's own (or the replaced `login` base when that is https) and this module sends each of its requests to the
 * replaced `login` base instead (a loopback Entra in tests, a sovereign cloud's host in production).
 */
const networkModule = (authorityOrigin: string, loginBase: string, fetch: typeof globalThis.fetch, failures: { last: TokenError | null }): INetworkModule => {
  const send = async <T>(method: "GET" | "POST", url: string, options?: NetworkRequestOptions): Promise<NetworkResponse<T>> => {
    const target = url.startsWith(authorityOrigin + "/") ? loginBase + url.slice(authorityOrigin.length) : url
    let response: Response
    try {
      response = await fetch(target, { method, headers: options?.headers ?? {}, ...(options?.body !== undefined ? { body: options.body } : {}) })
    } catch (error) {
      const refused = (error as { code?: string }).code === "ADDRESS_NOT_ALLOWED"
      failures.last = new TokenError(refused ? "ADDRESS_NOT_ALLOWED" : "SOURCE_UNREACHABLE", refused ? "The Entra sign-in address is not allowed" : "Entra could not be reached")
      throw failures.last
    }
    const text = await response.text()
    if (text.length > MAX_TOKEN_RESPONSE) {
      failures.last = new TokenError("SOURCE_UNREACHABLE", "Entra's answer is too large")
      throw failures.last
    }
    let body: unknown = {}
    try {
      body = text ? JSON.parse(text) : {}
    } catch {
      failures.last = new TokenError("SOURCE_UNREACHABLE", "Entra's answer is not JSON")
      throw failures.last
    }
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      headers[name] = value
    })
    return { headers, body: body as T, status: response.status }
  }
  return {
    sendGetRequestAsync: (url, options) => send("GET", url, options),
    sendPostRequestAsync: (url, options) => send("POST", url, options)
  }
}

/**
 * App-only tokens with a certificate (a client assertion signed with the private key, the certificate's SHA-256
 * thumbprint and chain in its header), one msal client per connection and step: `token(resource)` is msal's cached
 * token for `{resource}/.default`, `token(resource, true)` a new one (after a 401). Authority metadata is given,
 * not discovered, so the only request is the token request itself.
 */
export const tokenSource = (config: SharePointConfig, credential: SharePointCredential, settings: LoreSettings, fetch: typeof globalThis.fetch) => {
  const loginBase = vendorOrigins(settings).login
  const authorityOrigin = loginBase.startsWith("https://") ? new URL(loginBase).origin : LOGIN_ORIGIN
  const authorityHost = new URL(authorityOrigin).host
  const authority = `${authorityOrigin}/${config.tenantId}`
  const certificate = new X509Certificate(credential.certificatePem)
  const failures: { last: TokenError | null } = { last: null }
  const app = new ConfidentialClientApplication({
    auth: {
      clientId: config.clientId,
      authority,
      clientCertificate: {
        thumbprintSha256: createHash("sha256").update(certificate.raw).digest("hex"),
        privateKey: credential.privateKeyPem,
        x5c: credential.certificatePem
      },
      knownAuthorities: [authorityHost],
      cloudDiscoveryMetadata: JSON.stringify({
        tenant_discovery_endpoint: `${authority}/v2.0/.well-known/openid-configuration`,
        "api-version": "1.1",
        metadata: [{ preferred_network: authorityHost, preferred_cache: authorityHost, aliases: [authorityHost] }]
      }),
      authorityMetadata: JSON.stringify({
        token_endpoint: `${authority}/oauth2/v2.0/token`,
        authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
        issuer: `${authorityOrigin}/${config.tenantId}/v2.0`,
        jwks_uri: `${authorityOrigin}/${config.tenantId}/discovery/v2.0/keys`,
        end_session_endpoint: `${authority}/oauth2/v2.0/logout`
      })
    },
    system: { networkClient: networkModule(authorityOrigin, loginBase, fetch, failures) }
  })
  // msal's own cache lookup costs milliseconds a call; a request per file would pay it twice, so the token is kept
  // here until a minute before it expires (or a 401 asks for a fresh one).
  const held = new Map<string, { readonly token: string; readonly until: number }>()
  return async (resource: string, fresh = false): Promise<string> => {
    const kept = held.get(resource)
    if (!fresh && kept && kept.until > Date.now()) return kept.token
    failures.last = null
    try {
      const result = await app.acquireTokenByClientCredential({ scopes: [`${resource}/.default`], skipCache: fresh })
      if (!result?.accessToken) throw new TokenError("AUTHENTICATION_FAILED", "Entra gave no token")
      const expires = result.expiresOn ? result.expiresOn.getTime() : Date.now() + 5 * 60_000
      held.set(resource, { token: result.accessToken, until: expires - 60_000 })
      return result.accessToken
    } catch (error) {
      if (error instanceof TokenError) throw error
      if (failures.last) throw failures.last
      // invalid_client (certificate removed or expired), unauthorized_client, invalid tenant: the credential no longer works.
      throw new TokenError("AUTHENTICATION_FAILED", `Entra refused the app's certificate (${String((error as { errorCode?: string }).errorCode ?? "error").slice(0, 60)})`)
    }
  }
}

/** The resource whose `.default` scope a token is asked for: Graph's own name, even when its host is replaced by plain http in tests. */
export const graphResource = (settings: LoreSettings) => {
  const graph = vendorOrigins(settings).graph
  return graph.startsWith("https://") ? new URL(graph).origin : GRAPH_ORIGIN
}
