import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { openApiDocument } from "../../scripts/generate-openapi"

const committed = fileURLToPath(new URL("../../../../spec/openapi.json", import.meta.url))

describe("spec/openapi.json", () => {
  it("matches a fresh generation from the server's HttpApi (run `npm run gen` after changing the API)", () => {
    expect(readFileSync(committed, "utf8")).toBe(openApiDocument())
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
