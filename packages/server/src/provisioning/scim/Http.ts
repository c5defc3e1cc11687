import { HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { timingSafeEqual } from "node:crypto"
import { Settings } from "../../Config"
import { deniedPathSegment } from "../../domain/SafeKeys"
import { publicOrigin } from "../../domain/PublicUrl"
import { SecretBox } from "../../platform/SecretBox"
import { parseScimToken, SCIM_BASE_PATH, verifierOf } from "../Connections"
import { ProvisioningRepo } from "../Repo"
import { checkKeys, deniedPath, type ListQuery, Scim, type ScimCaller, ScimError } from "./Scim"
import { CORE_GROUP, CORE_USER, ENTERPRISE_USER } from "./Filter"
import { project } from "./Resources"
import { resourceTypes, schemaDocuments, serviceProviderConfig } from "./Discovery"

const SCIM_JSON = "application/scim+json"
const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"
const LIST_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
const MAX_COUNT = 200
const DEFAULT_COUNT = 100

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, contentType: SCIM_JSON })

/** Every SCIM error, 401 and 403 included, in the SCIM error schema with `status` as a string. */
export const scimError = (error: { status: number; scimType?: string | undefined; detail: string }) =>
  HttpServerResponse.unsafeJson(
    { schemas: [ERROR_SCHEMA], status: String(error.status), ...(error.scimType ? { scimType: error.scimType } : {}), detail: error.detail },
    { status: error.status, contentType: SCIM_JSON, headers: error.status === 401 ? { "www-authenticate": 'Bearer realm="scim"' } : {} }
  )

const equalText = (a: string, b: string) => {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}

const listOf = (attributes: string | null) => (attributes ?? "").split(",").map((a) => a.trim()).filter((a) => a.length > 0)

/** `attributes` and `excludedAttributes`, refused (invalidPath) when a path names an object's prototype. */
const projection = (params: URLSearchParams): Effect.Effect<{ readonly attributes: Array<string>; readonly excluded: Array<string> }, ScimError> => {
  const attributes = listOf(params.get("attributes"))
  const excluded = listOf(params.get("excludedAttributes"))
  return [...attributes, ...excluded].some((path) => deniedPathSegment(path) !== null) ? Effect.fail(deniedPath()) : Effect.succeed({ attributes, excluded })
}

/** Path segments after /scim/v2, percent-decoded; undefined when one does not decode (then the path is unknown). */
const segmentsOf = (pathname: string): Array<string> | undefined => {
  try {
    return pathname.slice(SCIM_BASE_PATH.length).split("/").filter((s) => s.length > 0).map(decodeURIComponent)
  } catch {
    return undefined
  }
}

/** Whether any string (or key) in a JSON value holds NUL, which PostgreSQL cannot store; walked without recursion. */
const holdsNul = (value: unknown) => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const current = stack.pop()
    if (typeof current === "string") {
      if (current.includes("\u0000")) return true
    } else if (Array.isArray(current)) stack.push(...current)
    else if (current !== null && typeof current === "object") {
      for (const [key, item] of Object.entries(current)) {
        if (key.includes("\u0000")) return true
        stack.push(item)
      }
    }
  }
  return false
}

const nulRefused = () => new ScimError({ status: 400, scimType: "invalidValue", detail: "The request must not contain the NUL character" })

/** Fixed details: a 404 or 405 never repeats the path or method the caller sent (docs/security.md). */
const noEndpoint = () => new ScimError({ status: 404, detail: "No SCIM endpoint at this path" })
const noEntry = () => new ScimError({ status: 404, detail: "No discovery entry with this id" })
const notAllowed = () => new ScimError({ status: 405, detail: "This method is not supported on this SCIM endpoint" })

/** startIndex as RFC 7644 reads it (1-based, at least 1); past Scim.MAX_START_INDEX the page is empty. */
const startIndexOf = (text: string | null) => {
  const digits = /^\s*\+?0*(\d+)/.exec(text ?? "")?.[1]
  if (digits === undefined) return 1
  return Math.max(1, digits.length > 15 ? Number.MAX_SAFE_INTEGER : Number(digits))
}

/**
 * The SCIM 2.0 service at /scim/v2: provisioning tokens only, SCIM bodies and errors (RFC 7644). App.ts mounts
 * it beside the HttpApi with http/RawRoutes.ts.
 */
export const makeScimApp = Effect.gen(function* () {
  const scim = yield* Scim
  const repo = yield* ProvisioningRepo
  const box = yield* SecretBox
  // meta.location and discovery URLs: LORE_PUBLIC_URL, else Host (forwarding headers only from LORE_TRUSTED_PROXIES).
  const settings = yield* Settings
  const originOf = publicOrigin(settings)
  const maxJsonBytes = settings.maxJsonBytes
  const baseUrl = (request: HttpServerRequest.HttpServerRequest) => `${originOf(request)}${SCIM_BASE_PATH}`

  const authenticate = (request: HttpServerRequest.HttpServerRequest, resource: "Users" | "Groups" | null) =>
    Effect.gen(function* () {
      const match = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "")
      const unauthorized = new ScimError({ status: 401, detail: "A provisioning token is required: Authorization: Bearer <token> (personal access tokens are not accepted here)" })
      if (!match) return yield* unauthorized
      const token = match[1]!
      const parsed = parseScimToken(token)
      if (!parsed) return yield* unauthorized
      const found = yield* repo.presented(parsed.publicTokenId)
      if (!found || !equalText(found.verifier, verifierOf(box, token))) return yield* unauthorized
      if (!found.live) return yield* new ScimError({ status: 401, detail: "The provisioning token is revoked or expired" })
      if (found.operationalState === "DISABLED") return yield* new ScimError({ status: 403, detail: "The provisioning connection is disabled" })
      if (found.operationalState === "PAUSED") return yield* new ScimError({ status: 503, detail: "The provisioning connection is paused; retry later" })
      if (resource === "Users" && !(found.usersScope && found.usersEnabled)) {
        return yield* new ScimError({ status: 403, detail: "This token (or its connection) may not provision users" })
      }
      if (resource === "Groups" && !(found.groupsScope && found.groupsEnabled)) {
        return yield* new ScimError({ status: 403, detail: "This token (or its connection) may not provision groups" })
      }
      yield* repo.touch(found.id)
      return {
        connectionId: found.connectionId,
        organizationId: found.organizationId,
        defaultRole: found.defaultRole,
        defaultClearance: found.defaultClearance,
        linkExistingUsers: found.linkExistingUsers,
        base: baseUrl(request)
      } satisfies ScimCaller
    })

  /** A JSON object body; `keysChecked` false leaves the denied-key check to the PATCH parser (paths first). */
  const body = (request: HttpServerRequest.HttpServerRequest, keysChecked = true) =>
    Number(request.headers["content-length"] ?? "0") > maxJsonBytes
      ? Effect.fail(new ScimError({ status: 413, detail: `The body is larger than ${maxJsonBytes} bytes` }))
      : Effect.flatMap(
      Effect.mapError(request.text, () => new ScimError({ status: 400, scimType: "invalidSyntax", detail: "The request body could not be read" })),
      (text) => {
        try {
          const value = JSON.parse(text)
          if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object")
          // Denied keys (__proto__, prototype, constructor, also inside dotted keys) are refused at any depth
          // before scim-patch or any other code walks the body.
          if (keysChecked) checkKeys(value)
          if (holdsNul(value)) throw nulRefused()
          return Effect.succeed(value as Record<string, any>)
        } catch (error) {
          if (error instanceof ScimError) return Effect.fail(error)
          return Effect.fail(new ScimError({ status: 400, scimType: "invalidSyntax", detail: "The body is not a JSON object" }))
        }
      }
    )

  const listQuery = (params: URLSearchParams): Effect.Effect<ListQuery, ScimError> => {
    const startIndex = startIndexOf(params.get("startIndex"))
    const requested = params.get("count")
    const count = requested === null ? DEFAULT_COUNT : Number.parseInt(requested, 10)
    if (Number.isNaN(count)) return Effect.fail(new ScimError({ status: 400, scimType: "invalidValue", detail: "count must be a number" }))
    return Effect.succeed({ filter: params.get("filter") ?? undefined, startIndex, count: Math.min(Math.max(0, count), MAX_COUNT) })
  }

  const listResponse = (result: { total: number; resources: Array<Record<string, unknown>> }, query: ListQuery, params: URLSearchParams) =>
    Effect.map(projection(params), ({ attributes, excluded }) => json({
      schemas: [LIST_SCHEMA],
      totalResults: result.total,
      startIndex: query.startIndex,
      itemsPerPage: result.resources.length,
      Resources: result.resources.map((r) => project(r, attributes, excluded))
    }))

  const one = (resource: Record<string, unknown>, params: URLSearchParams, status = 200) =>
    Effect.map(projection(params), ({ attributes, excluded }) => json(project(resource, attributes, excluded), status).pipe(
      HttpServerResponse.setHeader("location", String((resource.meta as { location?: string } | undefined)?.location ?? "")),
      HttpServerResponse.setHeader("etag", String((resource.meta as { version?: string } | undefined)?.version ?? ""))
    ))

  const route = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse, ScimError> =>
    Effect.gen(function* () {
      const url = new URL(request.url, "http://lore")
      const params = url.searchParams
      const segments = segmentsOf(url.pathname)
      const method = request.method
      if (segments === undefined || segments.length > 2) {
        yield* authenticate(request, null)
        return yield* noEndpoint()
      }
      if (request.url.includes("%00")) {
        yield* authenticate(request, null)
        return yield* nulRefused()
      }
      const [collection, id] = segments
      switch (collection) {
        case "ServiceProviderConfig":
          yield* authenticate(request, null)
          if (method !== "GET") return yield* notAllowed()
          return json(serviceProviderConfig(baseUrl(request)))
        case "ResourceTypes":
        case "Schemas": {
          yield* authenticate(request, null)
          if (method !== "GET") return yield* notAllowed()
          const documents = collection === "ResourceTypes" ? resourceTypes(baseUrl(request)) : schemaDocuments(baseUrl(request))
          if (id !== undefined) {
            const found = documents.find((d) => d.id === id || d.name === id)
            return found ? json(found) : yield* noEntry()
          }
          return json({ schemas: [LIST_SCHEMA], totalResults: documents.length, startIndex: 1, itemsPerPage: documents.length, Resources: documents })
        }
        case "Users": {
          const caller = yield* authenticate(request, "Users")
          // Projections are checked before any work, so a refused one leaves nothing half-written.
          yield* projection(params)
          if (id === undefined) {
            if (method === "GET") {
              const query = yield* listQuery(params)
              return yield* listResponse(yield* scim.listUsers(caller, query), query, params)
            }
            if (method === "POST") return yield* one(yield* scim.createUser(caller, yield* body(request)), params, 201)
            return yield* notAllowed()
          }
          switch (method) {
            case "GET": return yield* one(yield* scim.getUser(caller, id), params)
            case "PUT": return yield* one(yield* scim.replaceUser(caller, id, yield* body(request)), params)
            case "PATCH": return yield* one(yield* scim.patchUser(caller, id, yield* body(request, false)), params)
            case "DELETE": return (yield* scim.deleteUser(caller, id), HttpServerResponse.empty({ status: 204 }))
          }
          return yield* notAllowed()
        }
        case "Groups": {
          const caller = yield* authenticate(request, "Groups")
          yield* projection(params)
          const withMembers = !listOf(params.get("excludedAttributes")).some((a) => a.toLowerCase() === "members")
          if (id === undefined) {
            if (method === "GET") {
              const query = yield* listQuery(params)
              return yield* listResponse(yield* scim.listGroups(caller, query, withMembers), query, params)
            }
            if (method === "POST") return yield* one(yield* scim.createGroup(caller, yield* body(request)), params, 201)
            return yield* notAllowed()
          }
          switch (method) {
            case "GET": return yield* one(yield* scim.getGroup(caller, id), params)
            case "PUT": return yield* one(yield* scim.replaceGroup(caller, id, yield* body(request)), params)
            case "PATCH": return yield* one(yield* scim.patchGroup(caller, id, yield* body(request, false)), params)
            case "DELETE": return (yield* scim.deleteGroup(caller, id), HttpServerResponse.empty({ status: 204 }))
          }
          return yield* notAllowed()
        }
      }
      yield* authenticate(request, null)
      return yield* noEndpoint()
    })

  return Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) =>
    route(request).pipe(
      Effect.catchAll((error) => Effect.succeed(scimError(error))),
      Effect.catchAllDefect((defect) =>
        Effect.as(Effect.logError("SCIM request failed", defect), scimError({ status: 500, detail: "An unexpected error occurred; quote the x-request-id header when reporting it" })))
    )
  )
})

export const scimSchemaUrns = { CORE_USER, CORE_GROUP, ENTERPRISE_USER }
