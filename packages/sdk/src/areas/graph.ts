import type { LoreFetchClient } from "../fetchClient"
import { toQuery } from "../query"
import { unwrap, unwrapEmpty } from "../response"
import type {
  AliasCurationInput,
  Curation,
  EntityCurationInput,
  GraphExplorer,
  GraphExportFormat,
  GraphJob,
  GraphSettings,
  RelationCurationInput,
  SuppressionCurationInput
} from "../generated/openapi"
import type { QueryOf } from "../operations"
import { pollUntilSettled, type SettleOptions } from "../upload"

/** `q` (name, alias or description), `entityLimit` (1..500, default 50), `maxDepth` (0..4, default 1). */
export type ExplorerQuery = QueryOf<"exploreGraph">
export type GraphJobWaitOptions = SettleOptions<GraphJob>

const FINAL = new Set(["SUCCEEDED", "FAILED", "CANCELLED"])

/**
 * The knowledge graph (`lore.graph`): index an asset (a GraphJob on the server's queue), follow, cancel and resume
 * jobs, explore a space's graph (only what you may read), curate it, export it, and its per-space settings.
 */
export class GraphArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** Queues extraction of the asset's current version; answers the asset's active job when there is one. */
  index(knowledgeAssetId: string): Promise<GraphJob> {
    return unwrap(this.client.POST("/api/knowledge-assets/{knowledgeAssetId}/graph-index", { params: { path: { knowledgeAssetId } } }))
  }

  job(jobId: string): Promise<GraphJob> {
    return unwrap(this.client.GET("/api/knowledge-assets/graph-jobs/{jobId}", { params: { path: { jobId } } }))
  }

  /** QUEUED -> CANCELLED at once; RUNNING -> cancellationRequested, CANCELLED at its next chunk boundary. */
  cancel(jobId: string): Promise<GraphJob> {
    return unwrap(this.client.POST("/api/knowledge-assets/graph-jobs/{jobId}/cancel", { params: { path: { jobId } } }))
  }

  /** FAILED or CANCELLED -> QUEUED with attempt + 1 (continues from the chunks already extracted). */
  resume(jobId: string): Promise<GraphJob> {
    return unwrap(this.client.POST("/api/knowledge-assets/graph-jobs/{jobId}/resume", { params: { path: { jobId } } }))
  }

  /** Polls the job until SUCCEEDED, FAILED or CANCELLED (onStatus sees each change). */
  waitUntilSettled(jobId: string, options: GraphJobWaitOptions = {}): Promise<GraphJob> {
    return pollUntilSettled(`Graph job ${jobId}`, () => this.job(jobId), (status) => FINAL.has(status), options)
  }

  explore(knowledgeSpaceId: string, query: ExplorerQuery = {}): Promise<GraphExplorer> {
    return unwrap(this.client.GET("/api/knowledge-spaces/{knowledgeSpaceId}/graph/explorer", { params: { path: { knowledgeSpaceId }, query: toQuery(query) } }))
  }

  /** The export as text: JSON, CSV (two sections), MARKDOWN (with a Mermaid diagram) or TEXT. */
  async export(knowledgeSpaceId: string, format: GraphExportFormat = "JSON", query: ExplorerQuery = {}): Promise<string> {
    return unwrap(this.client.GET("/api/knowledge-spaces/{knowledgeSpaceId}/graph/export", {
      params: { path: { knowledgeSpaceId }, query: { ...toQuery(query), format } },
      parseAs: "text",
      headers: { accept: "*/*" }
    })) as Promise<string>
  }

  curations(knowledgeSpaceId: string): Promise<Array<Curation>> {
    return unwrap(this.client.GET("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations", { params: { path: { knowledgeSpaceId } } }))
  }

  /** Adds an entity, or corrects one (`entityId`). */
  curateEntity(knowledgeSpaceId: string, body: EntityCurationInput): Promise<Curation> {
    return unwrap(this.client.POST("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations/entities", { params: { path: { knowledgeSpaceId } }, body }))
  }

  /** Adds a relation between two entities, or corrects one (`relationId`). */
  curateRelation(knowledgeSpaceId: string, body: RelationCurationInput): Promise<Curation> {
    return unwrap(this.client.POST("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations/relations", { params: { path: { knowledgeSpaceId } }, body }))
  }

  /** Merges `entityId` into `intoEntityId`. */
  curateAlias(knowledgeSpaceId: string, body: AliasCurationInput): Promise<Curation> {
    return unwrap(this.client.POST("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations/aliases", { params: { path: { knowledgeSpaceId } }, body }))
  }

  suppress(knowledgeSpaceId: string, body: SuppressionCurationInput): Promise<Curation> {
    return unwrap(this.client.POST("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations/suppressions", { params: { path: { knowledgeSpaceId } }, body }))
  }

  /** 409 STALE_AUTHORIZATION_GENERATION unless `authorizationGeneration` is current (read it from `explore`). */
  removeCuration(knowledgeSpaceId: string, curationId: string, query: { authorizationGeneration: number; reason: string }): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/knowledge-spaces/{knowledgeSpaceId}/graph/curations/{curationId}", {
      params: { path: { knowledgeSpaceId, curationId }, query: { authorizationGeneration: String(query.authorizationGeneration), reason: query.reason } as any }
    }))
  }

  settings(knowledgeSpaceId: string): Promise<GraphSettings> {
    return unwrap(this.client.GET("/api/knowledge-spaces/{knowledgeSpaceId}/graph/settings", { params: { path: { knowledgeSpaceId } } }))
  }

  setSettings(knowledgeSpaceId: string, body: { indexingEnabled: boolean }): Promise<GraphSettings> {
    return unwrap(this.client.PUT("/api/knowledge-spaces/{knowledgeSpaceId}/graph/settings", { params: { path: { knowledgeSpaceId } }, body }))
  }
}
