import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { Gateways } from "./Gateways"
import { providerPresets } from "./Presets"
import { Routes } from "./Routes"
import { Usage } from "./Usage"

export const AiAdminHttp = HttpApiBuilder.group(LoreApi, "adminAi", (handlers) =>
  Effect.gen(function* () {
    const gateways = yield* Gateways
    const routes = yield* Routes
    const usage = yield* Usage
    return handlers
      .handle("listProviders", () => Effect.succeed(providerPresets))
      .handle("listGateways", () => asCaller(gateways.list))
      .handle("createGateway", ({ payload }) => asCaller((me) => gateways.create(me, payload)))
      .handle("testUnsavedGateway", ({ payload }) => gateways.testUnsaved(payload))
      .handle("updateGateway", ({ path, payload }) => asCaller((me) => gateways.update(me, path.profileId, payload)))
      .handle("deleteGateway", ({ path, urlParams }) => asCaller((me) => gateways.remove(me, path.profileId, urlParams.version)))
      .handle("setGatewayCredential", ({ path, payload }) => asCaller((me) => gateways.setCredential(me, path.profileId, payload.apiKey)))
      .handle("setAssistantModels", ({ path, payload }) => asCaller((me) => gateways.setAssistantModels(me, path.profileId, payload)))
      .handle("testGateway", ({ path }) => asCaller((me) => gateways.test(me, path.profileId)))
      .handle("listRoutes", () => asCaller(routes.shown))
      .handle("setRoute", ({ path, payload }) => asCaller((me) => routes.set(me, path.workload, payload)))
      .handle("resetRoute", ({ path, urlParams }) => asCaller((me) => routes.reset(me, path.workload, urlParams.version)))
      .handle("getIndexSettings", () => asCaller(routes.indexSettings))
      .handle("getAiUsage", ({ urlParams }) => asCaller((me) => usage.summary(me, urlParams.since, urlParams.until)))
  })
)
