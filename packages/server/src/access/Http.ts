import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { asCaller, CurrentUser } from "../domain/Principal"
import { AccessEvaluator } from "./Evaluator"
import { AccessExplainer } from "./Explain"
import { Spaces } from "./Spaces"

export const KnowledgeSpacesHttp = HttpApiBuilder.group(LoreApi, "knowledgeSpaces", (handlers) =>
  Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator
    return handlers
      .handle("listVisible", () => Effect.flatMap(CurrentUser, (me) => evaluator.spacesWith(me, "viewer")))
      .handle("listUploadTargets", () => Effect.flatMap(CurrentUser, (me) => evaluator.spacesWith(me, "contributor")))
  })
)

export const AccessAdminHttp = HttpApiBuilder.group(LoreApi, "adminAccess", (handlers) =>
  Effect.gen(function* () {
    const spaces = yield* Spaces
    const explainer = yield* AccessExplainer
    return handlers
      .handle("listKnowledgeSpaces", () => asCaller(spaces.list))
      .handle("createKnowledgeSpace", ({ payload }) => asCaller((me) => spaces.create(me, payload)))
      .handle("deleteKnowledgeSpace", ({ path }) => asCaller((me) => spaces.remove(me, path.knowledgeSpaceId)))
      .handle("listGrantOptions", () => Effect.sync(spaces.grantOptions))
      .handle("addGrant", ({ path, payload }) => asCaller((me) => spaces.addGrant(me, path.knowledgeSpaceId, payload)))
      .handle("removeGrant", ({ path, urlParams }) => asCaller((me) => spaces.removeGrant(me, path.knowledgeSpaceId, urlParams)))
      .handle("explainAccess", ({ payload }) => asCaller((me) => explainer.explain(me, payload)))
  })
)
