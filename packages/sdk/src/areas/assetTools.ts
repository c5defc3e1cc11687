import type { LoreFetchClient } from "../fetchClient"
import { unwrap } from "../response"
import type {
  AssetFeedbackInput,
  AssetType,
  FeedbackAnswer,
  ForkAnswer,
  ForkInput,
  PackJourneyAnswer,
  PromptForm,
  PromptRenderAnswer,
  PromptRunAnswer,
  RecommendationsAnswer,
  WorkInstructionAnswer
} from "../generated/openapi"

/**
 * The assistant's tools over released assets (`/api/assistant/tools/assets/...`). Every answer carries a
 * `traceId` the server logs with the tool, asset and release.
 */
export class AssetToolsArea {
  constructor(private readonly client: LoreFetchClient) {}

  private path(assetId: string, releaseId: string) {
    return { params: { path: { assetId, releaseId } } }
  }

  promptForm(assetId: string, releaseId: string): Promise<PromptForm> {
    return unwrap(this.client.GET("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/prompt-form", this.path(assetId, releaseId)))
  }

  renderPrompt(assetId: string, releaseId: string, variables: Record<string, unknown>): Promise<PromptRenderAnswer> {
    return unwrap(this.client.POST("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/prompt-render", { ...this.path(assetId, releaseId), body: { variables } }))
  }

  /** Runs the prompt on the PROMPT_EXECUTION route (LOCAL when none is set); the run is recorded without its variables. */
  runPrompt(assetId: string, releaseId: string, variables: Record<string, unknown>): Promise<PromptRunAnswer> {
    return unwrap(this.client.POST("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/prompt-run", { ...this.path(assetId, releaseId), body: { variables } }))
  }

  workInstruction(assetId: string, releaseId: string): Promise<WorkInstructionAnswer> {
    return unwrap(this.client.GET("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/work-instruction", this.path(assetId, releaseId)))
  }

  pack(assetId: string, releaseId: string): Promise<PackJourneyAnswer> {
    return unwrap(this.client.GET("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/pack", this.path(assetId, releaseId)))
  }

  startPack(assetId: string, releaseId: string): Promise<PackJourneyAnswer> {
    return unwrap(this.client.POST("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/pack", this.path(assetId, releaseId)))
  }

  completePackItem(assetId: string, releaseId: string, itemKey: string, completed = true): Promise<PackJourneyAnswer> {
    return unwrap(this.client.PUT("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/pack/{itemKey}", { params: { path: { assetId, releaseId, itemKey } }, body: { completed } }))
  }

  /** A new draft asset owned by the caller, from this released version. */
  fork(assetId: string, releaseId: string, input: ForkInput): Promise<ForkAnswer> {
    return unwrap(this.client.POST("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/fork", { ...this.path(assetId, releaseId), body: input }))
  }

  feedback(assetId: string, releaseId: string, input: AssetFeedbackInput): Promise<FeedbackAnswer> {
    return unwrap(this.client.POST("/api/assistant/tools/assets/{assetId}/releases/{releaseId}/feedback", { ...this.path(assetId, releaseId), body: input }))
  }

  /** Released assets the caller may use, best match first. */
  recommendations(query: { q?: string; type?: AssetType } = {}): Promise<RecommendationsAnswer> {
    return unwrap(this.client.GET("/api/assistant/tools/asset-recommendations", { params: { query } }))
  }
}
