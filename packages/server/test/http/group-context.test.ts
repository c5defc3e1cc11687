import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpServer } from "@effect/platform"
import { Context, Effect, Layer, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { groupWith } from "../../src/http/GroupContext"

class Listed extends Context.Tag("test/Listed")<Listed, { readonly name: string }>() {}
class Unlisted extends Context.Tag("test/Unlisted")<Unlisted, { readonly name: string }>() {}

const Probe = HttpApi.make("probe").add(
  HttpApiGroup.make("probe").add(HttpApiEndpoint.get("see", "/see").addSuccess(Schema.Struct({ listed: Schema.String, unlisted: Schema.Boolean })))
)

/** What a request of the group sees: the listed service, and whether the unlisted one leaked into its context. */
const ProbeHandlers = HttpApiBuilder.group(Probe, "probe", (handlers) =>
  handlers.handle("see", () =>
    Effect.gen(function* () {
      const listed = yield* Listed
      const unlisted = yield* Effect.serviceOption(Unlisted)
      return { listed: listed.name, unlisted: Option.isSome(unlisted) }
    })
  )
)

const see = async (groups: Layer.Layer<HttpApiGroup.ApiGroup<"probe", "probe">, never, Listed>) => {
  const app = HttpApiBuilder.api(Probe).pipe(
    Layer.provide(groups),
    Layer.provide(Layer.succeed(Listed, { name: "listed" })),
    Layer.provide(Layer.succeed(Unlisted, { name: "unlisted" }))
  )
  const { handler, dispose } = HttpApiBuilder.toWebHandler(Layer.merge(app, HttpServer.layerContext))
  try {
    const response = await handler(new Request("http://probe.test/see"))
    return await response.json()
  } finally {
    await dispose()
  }
}

describe("a handler group built with groupWith", () => {
  it("serves its routes with the services it lists, and nothing else of the app's context", async () => {
    expect(await see(ProbeHandlers)).toEqual({ listed: "listed", unlisted: true })
    expect(await see(groupWith(ProbeHandlers, [Listed]))).toEqual({ listed: "listed", unlisted: false })
  })
})
