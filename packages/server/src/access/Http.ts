import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { CurrentUser } from "../identity/CurrentUser"
import { AccessEvaluator } from "./Evaluator"

export const KnowledgeSpacesHttp = HttpApiBuilder.group(LoreApi, "knowledgeSpaces", (handlers) =>
  Effect.gen(function* () {
    const evaluator = yield* AccessEvaluator
    return handlers
      .handle("listVisible", () => Effect.flatMap(CurrentUser, (me) => evaluator.spacesWith(me, "viewer")))
      .handle("listUploadTargets", () => Effect.flatMap(CurrentUser, (me) => evaluator.spacesWith(me, "contributor")))
  })
)
