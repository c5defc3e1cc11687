import { problemRegistry } from "../domain/Errors"

type Json = Record<string, any>

const safeMethods = new Set(["get", "head", "options"])

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const refName = (schema: Json | undefined): string | undefined =>
  typeof schema?.$ref === "string" ? schema.$ref.replace("#/components/schemas/", "") : undefined

/** The error components a response schema names: one `$ref` or `anyOf` of them. */
const namedIn = (schema: Json | undefined): Array<string> =>
  schema?.anyOf ? schema.anyOf.flatMap((s: Json) => namedIn(s)) : [refName(schema)].filter((n): n is string => n !== undefined)

const oneOrAnyOf = (names: ReadonlyArray<string>): Json =>
  names.length === 1 ? ref(names[0]!) : { anyOf: names.map(ref) }

/**
 * Error responses as the problem layer sends them. Every error class made by the domain's factory is a
 * component whose encoded form is the problem body; per operation and status, the response lists exactly
 * the classes that endpoint declares (with its middleware's), as application/problem+json. The codes the
 * problem layer itself produces are listed where they can occur: VALIDATION_FAILED for any decode error,
 * MALFORMED_BODY and PAYLOAD_TOO_LARGE where there is a body.
 */
export const problemDocument = (spec: Json): Json => {
  const schemas: Json = { ...spec.components.schemas }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey"]) delete schemas[name]
  for (const [name, schema] of Object.entries<Json>(schemas)) {
    if (!problemRegistry.has(name)) continue
    const { _tag, ...properties } = schema.properties
    schemas[name] = {
      ...schema,
      properties: { ...properties, requestId: { type: "string", description: "The request's X-Request-Id" } },
      required: [...schema.required.filter((key: string) => key !== "_tag"), "requestId"]
    }
  }

  const paths: Json = {}
  for (const [template, operations] of Object.entries<Json>(spec.paths)) {
    // A literal colon in a route (`documents::bulk`, Google-style custom methods) is not a parameter.
    const path = template.replace(/:\{([A-Za-z]+)\}/g, ":$1")
    paths[path] = {}
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const hasBody = operation.requestBody !== undefined
      const byStatus = new Map<string, Array<string>>()
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) < 400) continue
        const names = namedIn(response.content?.["application/json"]?.schema).flatMap((name) =>
          name === "HttpApiDecodeError" ? (hasBody ? ["ValidationFailed", "MalformedBody"] : ["ValidationFailed"])
            // Only requests that change state need the CSRF token.
            : name === "CsrfTokenInvalid" && safeMethods.has(method) ? []
            : [name]
        )
        if (names.length === 0) continue
        byStatus.set(status, names)
      }
      if (hasBody) byStatus.set("413", ["PayloadTooLarge"])
      const responses: Json = {}
      for (const [status, response] of Object.entries<Json>(operation.responses)) {
        if (Number(status) < 400) responses[status] = response
      }
      for (const [status, names] of [...byStatus].sort(([a], [b]) => Number(a) - Number(b))) {
        const unique = [...new Set(names)]
        const unknown = unique.filter((name) => !problemRegistry.has(name))
        if (unknown.length > 0) throw new Error(`${method.toUpperCase()} ${path} declares errors not made by ProblemError: ${unknown.join(", ")}`)
        responses[status] = {
          description: unique.map((name) => problemRegistry.get(name)!.code).join(", "),
          content: { "application/problem+json": { schema: oneOrAnyOf(unique) } }
        }
      }
      paths[path][method] = { ...operation, responses }
    }
  }
  return {
    ...spec,
    paths,
    components: {
      ...spec.components,
      schemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "A personal access token: lore_pat_..." },
        session: { type: "apiKey", in: "cookie", name: "lore_session", description: "Browser session from POST /api/session; state-changing requests also need X-CSRF-Token" }
      }
    }
  }
}
