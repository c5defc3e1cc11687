import type { LoreFetchClient } from "../../fetchClient"
import { unwrap } from "../../response"
import type { Starter, StarterInput } from "../../generated/openapi"

/** The assistant's configured starters (`ai.manage`), offered to every member before derived ones. */
export class AdminAssistantArea {
  constructor(private readonly client: LoreFetchClient) {}

  starters(): Promise<Array<Starter>> {
    return unwrap(this.client.GET("/api/admin/assistant/starters"))
  }

  /** Replaces the whole list (at most 20), in this order. */
  setStarters(starters: ReadonlyArray<StarterInput>): Promise<Array<Starter>> {
    return unwrap(this.client.PUT("/api/admin/assistant/starters", { body: [...starters] }))
  }
}
