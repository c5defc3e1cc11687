import { Effect } from "effect"
import { GatewayInUse, GatewayNotEditable, InvalidGateway, InvalidRoute } from "./Errors"
import { ENVIRONMENT_GATEWAY_ID, type GatewayPreset, isEmbeddingWorkload, LOCAL_GATEWAY_ID, type ReasoningEffort, type Workload } from "./Model"
import { localModels, presetOf } from "./Presets"

/**
 * Rules for one gateway or route, beyond the endpoints' ai.manage permission.
 */

/** LOCAL is Lore's own and the environment gateway belongs to the server's settings: neither is changed through the API. */
export const editableGateway = (gatewayId: string) =>
  gatewayId === LOCAL_GATEWAY_ID
    ? Effect.fail(new GatewayNotEditable({ detail: "LOCAL is built in: it is always present and has no settings or credential" }))
    : gatewayId === ENVIRONMENT_GATEWAY_ID
      ? Effect.fail(new GatewayNotEditable({ detail: "This gateway is set by LORE_EMBEDDING_* on the server; change those settings, or route the workloads to another gateway" }))
      : Effect.void

/** A gateway a route uses stays until those routes move: deleting it would silently send the workloads elsewhere. */
export const gatewayDeletion = (gatewayKey: string, routes: ReadonlyArray<{ readonly workload: Workload }>) =>
  routes.length > 0
    ? Effect.fail(new GatewayInUse({ detail: `Gateway ${gatewayKey} is used by the routes ${routes.map((route) => route.workload).join(", ")}; route them elsewhere or reset them first` }))
    : Effect.void

/**
 * A gateway's base URL: http(s), without user or password (a key belongs in the write-only credential,
 * where it is encrypted; in the URL it would be shown to every reader). Trailing slashes are dropped.
 */
export const gatewayBaseUrl = (preset: GatewayPreset, raw: string | undefined): Effect.Effect<string, InvalidGateway> => {
  const { defaultBaseUrl, baseUrlEditable } = presetOf(preset)
  if (raw === undefined || !baseUrlEditable) return Effect.succeed(defaultBaseUrl)
  let url: URL
  try {
    url = new URL(raw.trim())
  } catch {
    return Effect.fail(new InvalidGateway({ detail: "baseUrl is not a URL; expected e.g. https://api.openai.com/v1" }))
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return Effect.fail(new InvalidGateway({ detail: "baseUrl must be an http:// or https:// URL" }))
  }
  if (url.username !== "" || url.password !== "") {
    return Effect.fail(new InvalidGateway({ detail: "baseUrl must not contain a user or password: set the API key with PUT .../credential" }))
  }
  url.hash = ""
  url.pathname = url.pathname.replace(/\/+$/, "")
  return Effect.succeed(url.toString().replace(/\/(\?|$)/, "$1"))
}

/** The LOCAL preset is Lore's built-in gateway, never a second one. */
export const creatablePreset = (preset: GatewayPreset) =>
  preset === "LOCAL"
    ? Effect.fail(new InvalidGateway({ detail: "LOCAL is built in and always present; choose another preset" }))
    : Effect.void

export interface RouteTarget {
  readonly gatewayId: string
  readonly gatewayKey: string
  readonly preset: GatewayPreset
  readonly supportsReasoningEffort: boolean
}

/** Whether a gateway and model can serve a workload. */
export const routeTarget = (workload: Workload, target: RouteTarget, modelId: string, effort: ReasoningEffort | undefined, dimensions?: number | undefined) => {
  const invalid = (detail: string) => Effect.fail(new InvalidRoute({ detail }))
  if (dimensions !== undefined && (!isEmbeddingWorkload(workload) || target.preset === "LOCAL")) {
    return invalid(isEmbeddingWorkload(workload) ? "LOCAL makes no vectors: leave dimensions out" : "dimensions applies to the embedding workloads only")
  }
  if (dimensions === undefined && isEmbeddingWorkload(workload) && target.preset !== "LOCAL") {
    return invalid(`An embedding route needs dimensions: the size of ${modelId}'s vectors (e.g. 1536 for text-embedding-3-small)`)
  }
  if (target.gatewayId === ENVIRONMENT_GATEWAY_ID) {
    return invalid("The environment gateway serves the embedding workloads by default; reset the route (DELETE) to use it")
  }
  if (target.preset === "LOCAL" && modelId !== localModels[workload].modelId) {
    return invalid(`LOCAL runs ${localModels[workload].modelId} for ${workload}`)
  }
  if (isEmbeddingWorkload(workload) && target.preset !== "LOCAL" && !presetOf(target.preset).supportsEmbeddings) {
    return invalid(`${presetOf(target.preset).displayName} has no embeddings API; route ${workload} to another gateway`)
  }
  if (effort !== undefined && (isEmbeddingWorkload(workload) || !target.supportsReasoningEffort)) {
    return invalid(isEmbeddingWorkload(workload)
      ? "providerReasoningEffort does not apply to embeddings"
      : `Gateway ${target.gatewayKey} does not take providerReasoningEffort (supportsProviderReasoningEffort is false)`)
  }
  return Effect.void
}

/**
 * A QUERY_EMBEDDING route is used only when it names the model and size of the search index's vectors (the
 * ACTIVE generation's, or the BUILDING one's, which becomes ACTIVE): a question embedded by another model is
 * not comparable with them. Any other route is refused rather than saved and silently ignored.
 */
export const queryRouteUsable = (
  generations: ReadonlyArray<{ readonly modelId: string; readonly dimensions: number; readonly number: number; readonly gatewayKey: string }>,
  modelId: string,
  dimensions: number | undefined
) => {
  if (generations.some((generation) => generation.modelId === modelId && generation.dimensions === dimensions)) return Effect.void
  const index = generations.map((generation) => `${generation.modelId} at ${generation.dimensions} dimensions (generation ${generation.number}, on ${generation.gatewayKey})`).join(" or ")
  return Effect.fail(new InvalidRoute({
    detail: generations.length === 0
      ? "The search index has no vectors, so questions cannot be embedded for it: route DOCUMENT_EMBEDDING to an embedding model first (QUERY_EMBEDDING follows it)"
      : `Questions must be embedded with the model of the search index's vectors, ${index}: route QUERY_EMBEDDING to a gateway serving that model, to LOCAL to turn query vectors off, or change DOCUMENT_EMBEDDING to re-embed the index`
  }))
}
