import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { GraphCurations } from "./Curations"
import { exportGraph } from "./Export"
import { GraphExplorerService } from "./Explorer"
import { GraphJobs } from "./GraphJobs"

export const GraphHttp = HttpApiBuilder.group(LoreApi, "graph", (handlers) =>
  Effect.gen(function* () {
    const jobs = yield* GraphJobs
    const explorer = yield* GraphExplorerService
    const curations = yield* GraphCurations
    return handlers
      .handle("indexAsset", ({ path }) => asCaller((me) => jobs.index(me, path.knowledgeAssetId)))
      .handle("getGraphJob", ({ path }) => asCaller((me) => jobs.get(me, path.jobId)))
      .handle("resumeGraphJob", ({ path }) => asCaller((me) => jobs.resume(me, path.jobId)))
      .handle("cancelGraphJob", ({ path }) => asCaller((me) => jobs.cancel(me, path.jobId)))
      .handle("exploreGraph", ({ path, urlParams }) => asCaller((me) => explorer.explore(me, path.knowledgeSpaceId, urlParams)))
      .handle("exportGraph", ({ path, urlParams }) =>
        asCaller((me) =>
          Effect.map(explorer.explore(me, path.knowledgeSpaceId, urlParams), (graph) => {
            const exported = exportGraph(graph, urlParams.format)
            return HttpServerResponse.text(exported.body, {
              contentType: exported.contentType,
              headers: {
                "content-disposition": `attachment; filename="graph-${path.knowledgeSpaceId}.${exported.extension}"`,
                "cache-control": "private, no-store"
              }
            })
          })))
      .handle("listCurations", ({ path }) => asCaller((me) => curations.list(me, path.knowledgeSpaceId)))
      .handle("curateEntity", ({ path, payload }) => asCaller((me) => curations.entity(me, path.knowledgeSpaceId, payload)))
      .handle("curateRelation", ({ path, payload }) => asCaller((me) => curations.relation(me, path.knowledgeSpaceId, payload)))
      .handle("curateAlias", ({ path, payload }) => asCaller((me) => curations.alias(me, path.knowledgeSpaceId, payload)))
      .handle("curateSuppression", ({ path, payload }) => asCaller((me) => curations.suppress(me, path.knowledgeSpaceId, payload)))
      .handle("deleteCuration", ({ path, urlParams }) => asCaller((me) => curations.remove(me, path.knowledgeSpaceId, path.curationId, urlParams)))
      .handle("getGraphSettings", ({ path }) => asCaller((me) => jobs.settings(me, path.knowledgeSpaceId)))
      .handle("setGraphSettings", ({ path, payload }) => asCaller((me) => jobs.setSettings(me, path.knowledgeSpaceId, payload)))
  })
)
