import type { LoreFetchClient } from "../fetchClient"
import { unwrap } from "../response"
import type { Me, OrganizationContext } from "../generated/openapi"

/** The caller and their organization. */
export class MeArea {
  constructor(private readonly client: LoreFetchClient) {}

  get(): Promise<Me> {
    return unwrap(this.client.GET("/api/me"))
  }

  /** Departments and active users of the caller's organization. */
  organization(): Promise<OrganizationContext> {
    return unwrap(this.client.GET("/api/organization/context"))
  }
}
