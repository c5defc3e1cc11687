import type { LoreFetchClient } from "../fetchClient"
import { unwrap, unwrapEmpty } from "../response"
import type { AccessToken, CreateAccessToken, IssuedAccessToken } from "../generated/openapi"

/** The caller's personal access tokens. */
export class TokensArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** Every token of the caller, without secrets. */
  list(): Promise<Array<AccessToken>> {
    return unwrap(this.client.GET("/api/me/tokens"))
  }

  /** A new token; `token` in the answer is the secret, shown this once. `expiresInDays: null` never expires. */
  create(input: CreateAccessToken): Promise<IssuedAccessToken> {
    return unwrap(this.client.POST("/api/me/tokens", { body: input }))
  }

  revoke(tokenId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/me/tokens/{tokenId}", { params: { path: { tokenId } } }))
  }
}
