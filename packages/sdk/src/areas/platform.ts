import type { LoreFetchClient } from "../fetchClient"
import { unwrap } from "../response"
import type { Health } from "../generated/openapi"

/** Server status; needs no credentials. */
export class PlatformArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** status, version, database (embedded|postgresql), databaseVersion, vectorSearch, migrationLevel, ... */
  health(): Promise<Health> {
    return unwrap(this.client.GET("/api/health"))
  }
}
