import { ProblemError } from "../domain/Errors"

export class KnowledgeAssetNotFound extends ProblemError<KnowledgeAssetNotFound>()("KnowledgeAssetNotFound", {
  status: 404, code: "KNOWLEDGE_ASSET_NOT_FOUND", description: "No knowledge asset with this id that the caller may see"
}) {}

export class KnowledgeAssetNotReady extends ProblemError<KnowledgeAssetNotReady>()("KnowledgeAssetNotReady", {
  status: 409, code: "KNOWLEDGE_ASSET_NOT_READY", description: "The knowledge asset has no READY version to extract a graph from yet"
}) {}

export class GraphJobNotFound extends ProblemError<GraphJobNotFound>()("GraphJobNotFound", {
  status: 404, code: "GRAPH_JOB_NOT_FOUND", description: "No graph job with this id on a knowledge asset the caller may see"
}) {}

export class GraphJobStateConflict extends ProblemError<GraphJobStateConflict>()("GraphJobStateConflict", {
  status: 409, code: "GRAPH_JOB_STATE_CONFLICT", description: "The graph job's status does not allow this transition (see the state machine in docs/decisions.md)"
}) {}

export class NotAGraphIndexer extends ProblemError<NotAGraphIndexer>()("NotAGraphIndexer", {
  status: 403, code: "NOT_A_GRAPH_INDEXER", description: "Indexing a knowledge asset into the graph needs contributor (or higher) on its knowledge space"
}) {}

export class NotAGraphCurator extends ProblemError<NotAGraphCurator>()("NotAGraphCurator", {
  status: 403, code: "NOT_A_GRAPH_CURATOR", description: "Curating the graph needs the curator (or manager) relation on the knowledge space"
}) {}

export class NotASpaceManager extends ProblemError<NotASpaceManager>()("NotASpaceManager", {
  status: 403, code: "NOT_A_SPACE_MANAGER", description: "Changing a knowledge space's graph settings needs the manager relation on it"
}) {}

export class GraphTargetNotFound extends ProblemError<GraphTargetNotFound>()("GraphTargetNotFound", {
  status: 404, code: "GRAPH_TARGET_NOT_FOUND", description: "No entity or relation with this id in the knowledge space's graph that the caller may see"
}) {}

export class GraphCurationNotFound extends ProblemError<GraphCurationNotFound>()("GraphCurationNotFound", {
  status: 404, code: "GRAPH_CURATION_NOT_FOUND", description: "No active curation with this id in the knowledge space"
}) {}

export class GraphCurationConflict extends ProblemError<GraphCurationConflict>()("GraphCurationConflict", {
  status: 409, code: "GRAPH_CURATION_CONFLICT", description: "The curation contradicts the overlay (an alias chain or cycle, a self-relation)"
}) {}

export class StaleAuthorizationGeneration extends ProblemError<StaleAuthorizationGeneration>()("StaleAuthorizationGeneration", {
  status: 409, code: "STALE_AUTHORIZATION_GENERATION", description: "authorizationGeneration is not the organization's current one: reload the graph and decide again"
}) {}
