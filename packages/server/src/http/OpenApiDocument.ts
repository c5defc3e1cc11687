
/**
 * Every error response is rewritten by the problem layer into one problem+json body (ProblemJson.ts),
 * so the document says exactly that (the Problem schema is added to the API as an additional schema) for every non-2xx response, whatever schema the error class had.
 */
export const problemDocument = (spec: Record<string, any>): Record<string, any> => {
  const problemRef = { $ref: "#/components/schemas/Problem" }
  const schemas: Record<string, unknown> = { ...spec.components.schemas }
  for (const name of ["HttpApiDecodeError", "Issue", "PropertyKey", "BadRequest", "Unauthorized", "Forbidden", "NotFound",
    "Conflict", "PayloadTooLarge", "UnsupportedMediaType", "Unprocessable", "TooManyRequests", "ServiceUnavailable", "InternalError"]) {
    delete schemas[name]
  }
  const paths: Record<string, any> = {}
  for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
    paths[path] = {}
    for (const [method, operation] of Object.entries<any>(operations)) {
      const responses: Record<string, any> = {}
      for (const [status, response] of Object.entries<any>(operation.responses)) {
        responses[status] = Number(status) >= 400
          ? { description: response.description === "Error" ? "Problem details" : response.description, content: { "application/problem+json": { schema: problemRef } } }
          : response
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
