import { Effect } from "effect"
import { Gateways } from "../ai/Gateways"
import type { ModelChoice } from "../ai/Models"
import { Routes } from "../ai/Routes"
import { localAssistantModel } from "../ai/Presets"
import type { Principal } from "../domain/Principal"
import { ModelOptionNotFound } from "./Errors"

export interface ModelOptionView {
  readonly id: string
  readonly gatewayId: string
  readonly gatewayLabel: string
  readonly provider: string
  readonly modelId: string
  readonly displayName: string
  readonly defaultChoice: boolean
  /** The administrator said the model takes tools: the chat runs its tool loop with it. */
  readonly toolCalling: boolean
}

/**
 * The assistant models a member may choose: the ones administrators listed on enabled gateways, and LOCAL
 * (fixed id 00000000-0000-4000-a000-0000000000a1), always offered. The default is the model the
 * ASSISTANT_CHAT route names (LOCAL when nothing is configured).
 */
export class ModelOptions extends Effect.Service<ModelOptions>()("lore/AssistantModelOptions", {
  effect: Effect.gen(function* () {
    const gateways = yield* Gateways
    const routes = yield* Routes

    const options = (actor: Principal) =>
      Effect.gen(function* () {
        const [all, routed] = yield* Effect.all([gateways.list(actor), routes.list(actor)])
        const route = routed.find((candidate) => candidate.workload === "ASSISTANT_CHAT")
        const offered = all
          .filter((gateway) => gateway.enabled)
          .flatMap((gateway) => gateway.assistantModels.map((model) => ({
            id: model.id, gatewayId: gateway.id, gatewayLabel: gateway.displayName, provider: gateway.preset, modelId: model.modelId, displayName: model.displayName,
            toolCalling: model.toolCalling && gateway.protocol !== "LOCAL"
          })))
        const routedOption = offered.find((option) => option.gatewayId === route?.gatewayProfileId && option.modelId === route?.modelId)
        const defaultId = routedOption?.id ?? localAssistantModel.id
        return offered.map((option): ModelOptionView => ({ ...option, defaultChoice: option.id === defaultId }))
      })

    /**
     * What the chat calls for an activation id: undefined means "the ASSISTANT_CHAT route" (the default
     * option, or a stored choice no longer offered), otherwise that gateway and model.
     */
    const choiceFor = (actor: Principal, activationId: string | null | undefined) =>
      Effect.map(options(actor), (all) => chosen(all, activationId))

    /** The call for an activation among the options, and whether it takes tools (the default option's flag when it is the route's). */
    const chosen = (all: ReadonlyArray<ModelOptionView>, activationId: string | null | undefined): { readonly choice: ModelChoice | undefined; readonly toolCalling: boolean } => {
      const option = all.find((candidate) => candidate.id === activationId)
      if (!option || option.defaultChoice) return { choice: undefined, toolCalling: all.find((candidate) => candidate.defaultChoice)?.toolCalling ?? false }
      return { choice: { gatewayId: option.gatewayId, modelId: option.modelId }, toolCalling: option.toolCalling }
    }

    return {
      options,
      choiceFor,
      chosen,
      /** The option with this id, or 404: what a member may pick. */
      require: (actor: Principal, activationId: string) =>
        Effect.flatMap(options(actor), (all) => {
          const option = all.find((candidate) => candidate.id === activationId)
          return option ? Effect.succeed(option) : Effect.fail(new ModelOptionNotFound({ detail: "No assistant model with this id is offered in your organization" }))
        }),
      /** The selected option for a conversation: its stored choice while still offered, else the default. */
      selected: (all: ReadonlyArray<ModelOptionView>, stored: string | null | undefined) =>
        (all.find((option) => option.id === stored) ?? all.find((option) => option.defaultChoice))?.id ?? localAssistantModel.id
    }
  })
}) {}
