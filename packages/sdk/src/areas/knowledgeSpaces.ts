import type { LoreFetchClient } from "../fetchClient"
import { unwrap } from "../response"
import type { KnowledgeSpaceRef } from "../generated/openapi"

/** Knowledge spaces as the caller sees them. */
export class KnowledgeSpacesArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** Spaces the caller may read. */
  visible(): Promise<Array<KnowledgeSpaceRef>> {
    return unwrap(this.client.GET("/api/knowledge-spaces/visible"))
  }

  /** Spaces the caller may upload into. */
  uploadTargets(): Promise<Array<KnowledgeSpaceRef>> {
    return unwrap(this.client.GET("/api/knowledge-spaces/upload-targets"))
  }
}
