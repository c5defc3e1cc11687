import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { Body, created, IntegerParam, Query, Timestamp } from "../domain/Schemas"
import { authenticated } from "../domain/Security"
import {
  GraphCurationConflict,
  GraphCurationNotFound,
  GraphJobNotFound,
  GraphJobStateConflict,
  GraphTargetNotFound,
  KnowledgeAssetNotFound,
  KnowledgeAssetNotReady,
  NotAGraphCurator,
  NotAGraphIndexer,
  NotASpaceManager,
  StaleAuthorizationGeneration
} from "./Errors"

/** QUEUED -> RUNNING -> SUCCEEDED | FAILED | CANCELLED; FAILED | CANCELLED -> QUEUED (resume). See docs/decisions.md. */
export const GraphJobStatus = Schema.Literal("QUEUED", "RUNNING", "SUCCEEDED", "FAILED", "CANCELLED").annotations({ identifier: "GraphJobStatus" })
export type GraphJobStatus = typeof GraphJobStatus.Type

export const GoverningEvidence = Schema.Struct({
  organizationId: Schema.UUID,
  knowledgeAssetId: Schema.NullOr(Schema.UUID),
  sourceRevisionId: Schema.NullOr(Schema.UUID),
  chunkId: Schema.NullOr(Schema.UUID),
  aclSnapshotId: Schema.NullOr(Schema.UUID).annotations({ description: "The source ACL snapshot the chunk was governed by; null for uploads (space grants only)" }),
  aclGeneration: Schema.Int.annotations({ description: "The organization's authorization generation when the evidence was projected (or curated)" }),
  chunk: Schema.Boolean.annotations({ description: "True when the evidence is a chunk; false for a curator's addition, governed by the space alone" })
}).annotations({ identifier: "GoverningEvidence" })

export const GraphJob = Schema.Struct({
  id: Schema.UUID,
  knowledgeAssetId: Schema.UUID,
  knowledgeAssetVersionId: Schema.UUID,
  sourceRevisionId: Schema.UUID,
  projectionGeneration: Schema.Int,
  graphProcessingProfileId: Schema.UUID,
  graphProcessingProfileSha256: Schema.String,
  status: GraphJobStatus,
  attempt: Schema.Int,
  cancellationRequested: Schema.Boolean,
  cancellationRequestedAt: Schema.NullOr(Timestamp),
  lastErrorCode: Schema.NullOr(Schema.String),
  lastErrorMessage: Schema.NullOr(Schema.String),
  completedAt: Schema.NullOr(Timestamp),
  chunksTotal: Schema.Int.annotations({ description: "Chunks of the version to extract from" }),
  chunksDone: Schema.Int.annotations({ description: "Chunks extracted so far (kept across a resume)" }),
  extractor: Schema.String.annotations({ description: "LOCAL (offline, compromise NLP) or LLM (the GRAPH_EXTRACTION route)" }),
  createdAt: Timestamp
}).annotations({ identifier: "GraphJob" })

export const GraphEntity = Schema.Struct({
  id: Schema.UUID,
  name: Schema.String,
  type: Schema.String,
  description: Schema.String,
  citationChunkIds: Schema.Array(Schema.UUID),
  governingEvidence: GoverningEvidence,
  depth: Schema.Int.annotations({ description: "Hops from the nearest entity matching q (0 for a match)" })
}).annotations({ identifier: "GraphEntity" })

export const GraphRelation = Schema.Struct({
  id: Schema.UUID,
  sourceEntityId: Schema.UUID,
  targetEntityId: Schema.UUID,
  type: Schema.String,
  description: Schema.String,
  weight: Schema.Number,
  keywords: Schema.Array(Schema.String),
  citationChunkIds: Schema.Array(Schema.UUID),
  governingEvidence: GoverningEvidence
}).annotations({ identifier: "GraphRelation" })

export const GraphExplorer = Schema.Struct({
  knowledgeSpaceId: Schema.UUID,
  authorizationGeneration: Schema.Int,
  canCurate: Schema.Boolean,
  entities: Schema.Array(GraphEntity),
  relations: Schema.Array(GraphRelation),
  truncated: Schema.Boolean
}).annotations({ identifier: "GraphExplorer" })

export const CurationKind = Schema.Literal("ENTITY", "RELATION", "ALIAS", "SUPPRESSION").annotations({ identifier: "GraphCurationKind" })
export const CurationTargetKind = Schema.Literal("ENTITY", "RELATION").annotations({ identifier: "GraphCurationTargetKind" })

export const Curation = Schema.Struct({
  id: Schema.UUID,
  namespace: Schema.Struct({ organizationId: Schema.UUID, workspace: Schema.String, collection: Schema.String }),
  curationKind: CurationKind,
  entity: Schema.Struct({ kind: CurationTargetKind, id: Schema.UUID }).annotations({ description: "The entity or relation the curation adds, corrects, merges or hides" }),
  intoEntityId: Schema.NullOr(Schema.UUID).annotations({ description: "ALIAS: the entity the target is merged into" }),
  name: Schema.NullOr(Schema.String),
  type: Schema.NullOr(Schema.String),
  description: Schema.NullOr(Schema.String),
  governingEvidence: GoverningEvidence,
  provenance: Schema.Struct({
    actorUserId: Schema.NullOr(Schema.UUID),
    authorizationModelId: Schema.String,
    aclGeneration: Schema.Int,
    curatedAt: Timestamp,
    reason: Schema.String
  }),
  dangling: Schema.Boolean.annotations({ description: "True when the target no longer has any extracted evidence (the curation is kept, and applies again if it returns)" })
}).annotations({ identifier: "Curation" })

export const GraphSettings = Schema.Struct({
  knowledgeSpaceId: Schema.UUID,
  indexingEnabled: Schema.Boolean.annotations({ description: "When on, every new READY version of an asset of the space queues its graph extraction" }),
  retrievalEnabled: Schema.Boolean.annotations({ description: "When on, the assistant's retrieval adds the passages behind the relations of entities a question names" })
}).annotations({ identifier: "GraphSettings" })

const Name = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))
const Type = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(60))
const Description = Schema.String.pipe(Schema.maxLength(4000))
const Reason = Schema.String.pipe(Schema.maxLength(1000))

export const EntityCurationInput = Body({
  entityId: Schema.optional(Schema.UUID).annotations({ description: "The entity to correct; absent to add a new one" }),
  name: Name,
  type: Type,
  description: Schema.optional(Description),
  reason: Schema.optional(Reason)
}).annotations({ identifier: "EntityCurationInput" })

export const RelationCurationInput = Body({
  relationId: Schema.optional(Schema.UUID).annotations({ description: "The relation to correct; absent to add a new one between the two entities" }),
  sourceEntityId: Schema.UUID,
  targetEntityId: Schema.UUID,
  type: Type,
  description: Schema.optional(Description),
  keywords: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(60))).pipe(Schema.maxItems(20))),
  weight: Schema.optional(Schema.Number.pipe(Schema.between(0, 100))),
  reason: Schema.optional(Reason)
}).annotations({ identifier: "RelationCurationInput" })

export const AliasCurationInput = Body({
  entityId: Schema.UUID.annotations({ description: "The entity merged away (becomes an alias)" }),
  intoEntityId: Schema.UUID.annotations({ description: "The entity it is merged into" }),
  reason: Schema.optional(Reason)
}).annotations({ identifier: "AliasCurationInput" })

export const SuppressionCurationInput = Body({
  kind: CurationTargetKind,
  id: Schema.UUID,
  reason: Schema.optional(Reason)
}).annotations({ identifier: "SuppressionCurationInput" })

export const GraphSettingsInput = Body({
  indexingEnabled: Schema.optional(Schema.Boolean),
  retrievalEnabled: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "GraphSettingsInput", description: "Fields left out keep their value" })

export const ExplorerQuery = Query({
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  entityLimit: Schema.optionalWith(IntegerParam(1, 500), { default: () => 50 }),
  maxDepth: Schema.optionalWith(IntegerParam(0, 4), { default: () => 1 })
})

export const ExportFormat = Schema.Literal("JSON", "CSV", "MARKDOWN", "TEXT").annotations({ identifier: "GraphExportFormat" })
export const ExportQuery = Query({
  format: Schema.optionalWith(ExportFormat, { default: () => "JSON" as const }),
  q: Schema.optional(Schema.String.pipe(Schema.maxLength(500))),
  entityLimit: Schema.optionalWith(IntegerParam(1, 5000), { default: () => 1000 }),
  maxDepth: Schema.optionalWith(IntegerParam(0, 4), { default: () => 1 })
})

export const DeleteCurationQuery = Query({
  authorizationGeneration: Schema.NumberFromString.pipe(Schema.int()).annotations({ jsonSchema: { type: "integer", format: "int64" } }),
  reason: Schema.String.pipe(Schema.maxLength(1000))
})

const ExportBody = HttpApiSchema.withEncoding(Schema.String, { kind: "Text", contentType: "text/plain" })

const AssetPath = Schema.Struct({ knowledgeAssetId: Schema.UUID })
const JobPath = Schema.Struct({ jobId: Schema.UUID })
const SpacePath = Schema.Struct({ knowledgeSpaceId: Schema.UUID })
const CurationPath = Schema.Struct({ knowledgeSpaceId: Schema.UUID, curationId: Schema.UUID })

export class GraphApi extends HttpApiGroup.make("graph")
  .add(
    HttpApiEndpoint.post("indexAsset", "/knowledge-assets/:knowledgeAssetId/graph-index")
      .setPath(AssetPath)
      .addSuccess(GraphJob)
      .addError(KnowledgeAssetNotFound)
      .addError(KnowledgeAssetNotReady)
      .addError(NotAGraphIndexer)
      .pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("getGraphJob", "/knowledge-assets/graph-jobs/:jobId").setPath(JobPath).addSuccess(GraphJob).addError(GraphJobNotFound).pipe(authenticated))
  .add(
    HttpApiEndpoint.post("resumeGraphJob", "/knowledge-assets/graph-jobs/:jobId/resume")
      .setPath(JobPath).addSuccess(GraphJob).addError(GraphJobNotFound).addError(GraphJobStateConflict).addError(NotAGraphIndexer).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("cancelGraphJob", "/knowledge-assets/graph-jobs/:jobId/cancel")
      .setPath(JobPath).addSuccess(GraphJob).addError(GraphJobNotFound).addError(GraphJobStateConflict).addError(NotAGraphIndexer).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("exploreGraph", "/knowledge-spaces/:knowledgeSpaceId/graph/explorer")
      .setPath(SpacePath).setUrlParams(ExplorerQuery).addSuccess(GraphExplorer).addError(KnowledgeSpaceNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("exportGraph", "/knowledge-spaces/:knowledgeSpaceId/graph/export")
      .setPath(SpacePath).setUrlParams(ExportQuery)
      .addSuccess(ExportBody.annotations({ description: "JSON, CSV (two sections), Markdown (with a Mermaid diagram) or plain text of what the caller may see" }))
      .addError(KnowledgeSpaceNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("listCurations", "/knowledge-spaces/:knowledgeSpaceId/graph/curations")
      .setPath(SpacePath).addSuccess(Schema.Array(Curation)).addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("curateEntity", "/knowledge-spaces/:knowledgeSpaceId/graph/curations/entities")
      .setPath(SpacePath).setPayload(EntityCurationInput).addSuccess(created(Curation))
      .addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).addError(GraphTargetNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("curateRelation", "/knowledge-spaces/:knowledgeSpaceId/graph/curations/relations")
      .setPath(SpacePath).setPayload(RelationCurationInput).addSuccess(created(Curation))
      .addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).addError(GraphTargetNotFound).addError(GraphCurationConflict).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("curateAlias", "/knowledge-spaces/:knowledgeSpaceId/graph/curations/aliases")
      .setPath(SpacePath).setPayload(AliasCurationInput).addSuccess(created(Curation))
      .addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).addError(GraphTargetNotFound).addError(GraphCurationConflict).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.post("curateSuppression", "/knowledge-spaces/:knowledgeSpaceId/graph/curations/suppressions")
      .setPath(SpacePath).setPayload(SuppressionCurationInput).addSuccess(created(Curation))
      .addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).addError(GraphTargetNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("deleteCuration", "/knowledge-spaces/:knowledgeSpaceId/graph/curations/:curationId")
      .setPath(CurationPath).setUrlParams(DeleteCurationQuery)
      .addError(KnowledgeSpaceNotFound).addError(NotAGraphCurator).addError(GraphCurationNotFound).addError(StaleAuthorizationGeneration).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getGraphSettings", "/knowledge-spaces/:knowledgeSpaceId/graph/settings")
      .setPath(SpacePath).addSuccess(GraphSettings).addError(KnowledgeSpaceNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.put("setGraphSettings", "/knowledge-spaces/:knowledgeSpaceId/graph/settings")
      .setPath(SpacePath).setPayload(GraphSettingsInput).addSuccess(GraphSettings)
      .addError(KnowledgeSpaceNotFound).addError(NotASpaceManager).pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Knowledge graph")
  .annotate(
    OpenApi.Description,
    "Graph extraction jobs per knowledge asset, a permission-filtered explorer and export, and curations that outlive every re-extraction"
  ) {}
