import type { LoreFetchClient } from "../../fetchClient"
import { unwrap } from "../../response"
import type { SetSsoSettings, SsoSettings } from "../../generated/openapi"

/**
 * Single sign-on administration (`provisioning.manage`): the organization's OpenID Connect provider. The
 * client secret is write-only (`clientSecretSet` tells whether one is stored). Register
 * `<server>/api/session/sso/callback` as the redirect URI at the provider.
 */
export class AdminSsoArea {
  constructor(private readonly client: LoreFetchClient) {}

  get(): Promise<SsoSettings> {
    return unwrap(this.client.GET("/api/admin/sso"))
  }

  /** `version` is the one read (0 before the first save): 409 SSO_VERSION_CONFLICT when stale. */
  set(input: SetSsoSettings): Promise<SsoSettings> {
    return unwrap(this.client.PUT("/api/admin/sso", { body: input }))
  }
}

/** Where a browser starts signing in; `cliRedirect` (a loopback URL) receives a new token instead of a cookie. */
export const ssoStartUrl = (baseUrl: string, options: { readonly returnTo?: string; readonly cliRedirect?: string } = {}) => {
  const url = new URL("/api/session/sso/start", baseUrl)
  if (options.returnTo) url.searchParams.set("returnTo", options.returnTo)
  if (options.cliRedirect) url.searchParams.set("cliRedirect", options.cliRedirect)
  return url.href
}
