import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { errorCodesDocument, openApiDocument } from "../../scripts/generate-openapi"

const committed = fileURLToPath(new URL("../../../../spec/openapi.json", import.meta.url))
const committedErrors = fileURLToPath(new URL("../../../../docs/errors.md", import.meta.url))

describe("spec/openapi.json", () => {
  it("matches a fresh generation from the server's HttpApi (run `npm run gen` after changing the API)", () => {
    expect(readFileSync(committed, "utf8")).toBe(openApiDocument())
  })

  it("docs/errors.md matches a fresh generation from the error classes", () => {
    expect(readFileSync(committedErrors, "utf8")).toBe(errorCodesDocument())
  })

  it("lists per operation exactly the codes it declares, as problem+json", () => {
    const document = JSON.parse(openApiDocument())
    const codes = (path: string, method: string, status: string) => {
      const schema = document.paths[path][method].responses[status].content["application/problem+json"].schema
      return [schema, ...(schema.anyOf ?? [])].filter((s: any) => s.$ref).map((s: any) => document.components.schemas[s.$ref.split("/").pop()].properties.code.enum[0])
    }
    expect(codes("/api/admin/users/{userId}", "patch", "404").sort()).toEqual(["DEPARTMENT_NOT_FOUND", "USER_NOT_FOUND"])
    expect(codes("/api/admin/users/{userId}", "patch", "403").sort()).toEqual(["CLEARANCE_ABOVE_OWN", "CSRF_TOKEN_INVALID", "PERMISSION_DENIED", "SELF_ADMINISTRATION"])
    expect(codes("/api/admin/users/{userId}", "patch", "400").sort()).toEqual(["MALFORMED_BODY", "VALIDATION_FAILED"])
    expect(codes("/api/sources", "get", "400").sort()).toEqual(["INVALID_CURSOR", "VALIDATION_FAILED"])
    // Authenticated but no permission: PERMISSION_DENIED cannot occur, and GETs need no CSRF token.
    expect(document.paths["/api/me"].get.responses["403"]).toBeUndefined()
    expect(document.paths["/api/admin/users"].get["x-lore-permission"]).toBe("users.read")
    expect(document.paths["/api/health"].get["x-lore-access"]).toBe("public")
    expect(document.paths["/api/health"].get.responses["401"]).toBeUndefined()
  })

  it("declares bearer and cookie security and problem+json errors", () => {
    const document = JSON.parse(openApiDocument()) as {
      components: { securitySchemes?: Record<string, { type: string; scheme?: string; in?: string }> }
      paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, unknown> }> }>>
    }
    const schemes = Object.values(document.components.securitySchemes ?? {})
    expect(schemes).toEqual(expect.arrayContaining([expect.objectContaining({ type: "http", scheme: "bearer" })]))
    expect(schemes).toEqual(expect.arrayContaining([expect.objectContaining({ type: "apiKey", in: "cookie" })]))
    const me = document.paths["/api/me"]!.get!
    expect(me.operationId).toBe("me.getMe")
    expect(Object.keys(me.responses["401"]!.content ?? {})).toEqual(["application/problem+json"])
  })
})
