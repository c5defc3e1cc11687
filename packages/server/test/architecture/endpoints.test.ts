import { HttpApi } from "@effect/platform"
import { Context, type Option } from "effect"
import { describe, expect, it } from "vitest"
import { LoreApi } from "../../src/http/Api"
import { AccessRequirement, Authentication, Authorization, type EndpointAccess } from "../../src/domain/Security"
import { RequiredPermission } from "../../src/domain/Permissions"

interface Walked {
  readonly key: string
  readonly access: Option.Option<EndpointAccess>
  readonly middlewares: ReadonlyArray<unknown>
  readonly legacyPermission: boolean
}

/** Every endpoint of the assembled API with its access declaration and the middleware it runs through. */
const walk = (): ReadonlyArray<Walked> => {
  const found: Array<Walked> = []
  HttpApi.reflect(LoreApi, {
    onGroup() {},
    onEndpoint({ endpoint, group, mergedAnnotations }) {
      found.push({
        key: `${endpoint.method} ${endpoint.path}`,
        access: Context.getOption(mergedAnnotations, AccessRequirement),
        middlewares: [...(group as any).middlewares, ...(endpoint as any).middlewares],
        legacyPermission: Context.getOption(mergedAnnotations, RequiredPermission)._tag === "Some"
      })
    }
  })
  return found
}

/** Served outside the HttpApi groups, public by construction: the document and its reader. */
const publicByConstruction = ["GET /api/openapi.json", "GET /docs"]

describe("every endpoint declares what it requires of its caller (fails closed)", () => {
  const endpoints = walk()

  it("walks the whole API", () => {
    expect(endpoints.length).toBeGreaterThan(30)
    expect(publicByConstruction).toHaveLength(2)
  })

  it.each(endpoints.map((e) => [e.key, e] as const))("%s declares exactly one of permission, Authenticated, OptionalAuthenticated, Public", (_key, endpoint) => {
    expect(endpoint.access._tag).toBe("Some")
    expect(endpoint.legacyPermission).toBe(false)
  })

  it.each(endpoints.map((e) => [e.key, e] as const))("%s runs through the middleware its declaration needs", (_key, endpoint) => {
    if (endpoint.access._tag !== "Some") throw new Error("no declaration")
    const kind = endpoint.access.value.kind
    const authenticates = endpoint.middlewares.includes(Authentication)
    const authorizes = endpoint.middlewares.includes(Authorization)
    switch (kind) {
      case "permission":
        expect(authenticates && authorizes).toBe(true)
        break
      case "authenticated":
        expect(authenticates).toBe(true)
        expect(authorizes).toBe(false)
        break
      default:
        // Public and optionally authenticated endpoints must answer anonymous callers.
        expect(authenticates || authorizes).toBe(false)
    }
  })
})
