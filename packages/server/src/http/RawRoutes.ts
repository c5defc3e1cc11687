import { HttpApiBuilder, type HttpApp } from "@effect/platform"
import { Effect, Layer } from "effect"

/**
 * Routes served beside the HttpApi and outside its contract (SCIM at /scim/v2, MCP at /mcp): they
 * speak their own protocol, so they are not in the OpenAPI document, the API's authentication middleware
 * does not run on them, and the problem+json layer leaves their error bodies alone (each protocol has its
 * own error format). Request ids, body limits and the defect log still apply.
 *
 * To add one: put its prefix in `rawRoutePrefixes` and give its layer (from `mountRaw`) to the API
 * handlers in App.ts.
 */
export const rawRoutePrefixes: ReadonlyArray<string> = ["/scim/v2", "/mcp"]

/**
 * Raw routes that refuse oversized bodies and NUL characters themselves, in their own error format (SCIM's
 * error schema): the problem layer's early 413 and %00 answers are problem+json, so it leaves these alone
 * (the body size limit itself still applies to them).
 */
const selfCheckedPrefixes: ReadonlyArray<string> = ["/scim/v2"]

const pathOf = (url: string) => (url.startsWith("/") ? url.split("?")[0]! : new URL(url, "http://lore").pathname)

export const checksOwnInput = (url: string): boolean => {
  const path = pathOf(url)
  return selfCheckedPrefixes.some((prefix) => path === prefix || path.startsWith(prefix + "/"))
}

/** Whether a request URL belongs to a raw route (and so keeps its own error bodies). */
export const isRawRoute = (url: string): boolean => {
  const path = url.startsWith("/") ? url.split("?")[0]! : new URL(url, "http://lore").pathname
  return rawRoutePrefixes.some((prefix) => path === prefix || path.startsWith(prefix + "/"))
}

/**
 * Mounts an app at `prefix` on the API's router, URL kept whole (the app sees `/scim/v2/Users`).
 * `make` runs once, when the server starts, and may take services from the areas.
 */
export const mountRaw = <E, R, EM, RM>(prefix: `/${string}`, make: Effect.Effect<HttpApp.Default<E, R>, EM, RM>) => {
  if (!rawRoutePrefixes.includes(prefix)) throw new Error(`mountRaw: add ${prefix} to rawRoutePrefixes`)
  return HttpApiBuilder.Router.use((router) =>
    Effect.flatMap(make, (app) => router.mountApp(prefix, app as HttpApp.Default<any, any>, { includePrefix: true }))
  ) as Layer.Layer<never, EM, Exclude<RM, import("effect/Scope").Scope>>
}
