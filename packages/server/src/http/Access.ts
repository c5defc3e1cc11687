import { HttpApi } from "@effect/platform"
import { Context } from "effect"
import { AccessRequirement, type EndpointAccess } from "../domain/Security"

/** "METHOD /path/:pattern" -> what its endpoint requires, read from the endpoints' annotations. */
export const endpointAccessTable = (api: HttpApi.HttpApi.Any): ReadonlyMap<string, EndpointAccess> => {
  const table = new Map<string, EndpointAccess>()
  HttpApi.reflect(api as any, {
    onGroup() {},
    onEndpoint({ endpoint, mergedAnnotations }) {
      const access = Context.getOption(mergedAnnotations, AccessRequirement)
      if (access._tag === "Some") table.set(`${endpoint.method} ${endpoint.path}`, access.value)
    }
  })
  return table
}
