import type { LoreFetchClient } from "../client"
import { unwrap } from "../response"
import type { Health } from "../types"

/** Server status; needs no credentials. */
export class PlatformArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** status, version, database (embedded|postgresql), databaseVersion, vectorSearch, migrationLevel, ... */
  health(): Promise<Health> {
    return unwrap(this.client.GET("/api/health"))
  }
}
