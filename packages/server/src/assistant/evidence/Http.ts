import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../../http/Api"
import { asCaller } from "../../domain/Principal"
import { Evidence } from "./Evidence"

export const AssistantEvidenceHttp = HttpApiBuilder.group(LoreApi, "assistantEvidence", (handlers) =>
  Effect.gen(function* () {
    const evidence = yield* Evidence
    return handlers
      .handle("uploadEvidence", ({ payload, urlParams }) =>
        asCaller((me) => evidence.upload(me, urlParams, { path: payload.file.path, name: payload.file.name, contentType: payload.file.contentType }))
      )
      .handle("listEvidence", ({ path }) => asCaller((me) => evidence.list(me, path.conversationId)))
      .handle("getEvidence", ({ path }) => asCaller((me) => evidence.get(me, path.conversationId, path.bindingId)))
  })
)
