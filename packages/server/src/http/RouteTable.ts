import { HttpApi } from "@effect/platform"

/** The API's paths as patterns, to tell "no such route" (404) from "wrong method" (405). */
export interface RouteTable {
  readonly methodsFor: (pathname: string) => ReadonlyArray<string>
}

export const routeTable = (api: HttpApi.HttpApi.Any): RouteTable => {
  const routes: Array<{ readonly pattern: RegExp; readonly method: string }> = []
  HttpApi.reflect(api as any, {
    onGroup() {},
    onEndpoint({ endpoint }) {
      const source = endpoint.path
        .split("/")
        .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")))
        .join("/")
      routes.push({ pattern: new RegExp(`^${source}/?$`), method: endpoint.method })
    }
  })
  return {
    methodsFor: (pathname) => [...new Set(routes.filter((r) => r.pattern.test(pathname)).map((r) => r.method))]
  }
}
