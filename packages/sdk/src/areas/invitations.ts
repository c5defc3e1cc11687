import type { LoreFetchClient } from "../fetchClient"
import { unwrap } from "../response"
import type { AcceptInvitation, AcceptedInvitation } from "../generated/openapi"

/** The invitee's side of an invitation; needs no credentials. */
export class InvitationsArea {
  constructor(private readonly client: LoreFetchClient) {}

  /**
   * Redeems an invitation code: creates the active user and their first personal access token
   * (`token.token`, shown this once). Expired, revoked or already used codes are refused.
   */
  accept(input: AcceptInvitation): Promise<AcceptedInvitation> {
    return unwrap(this.client.POST("/api/invitations/accept", { body: input }))
  }
}
