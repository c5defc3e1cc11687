import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocument } from "../../scripts/generate-openapi"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

const base64url = (text: string) => Buffer.from(text).toString("base64url")

/** Values that have broken parsers and SQL casts before: none may give a 500. */
const malformed = [
  "not-a-uuid",
  "00000000-0000-0000-0000-00000000000g",
  "' OR 1=1 --",
  "%00",
  "\u0000",
  "-1",
  "1e309",
  "NaN",
  "9".repeat(400),
  "é😀",
  base64url("2020-01-01T00:00:00.000Z|not-a-uuid"),
  base64url("not-a-date|00000000-0000-0000-0000-000000000000"),
  base64url("{}"),
  "!!!"
]

interface Parameter {
  readonly name: string
  readonly in: "path" | "query"
}

const operations = () => {
  const document = JSON.parse(openApiDocument())
  return Object.entries<Record<string, any>>(document.paths).flatMap(([path, methods]) =>
    Object.entries<any>(methods).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []).filter((p: Parameter) => p.in === "path" || p.in === "query") as Array<Parameter>,
      hasJsonBody: operation.requestBody?.content?.["application/json"] !== undefined
    }))
  )
}

const validUuid = "00000000-0000-4000-8000-000000000000"

describe("malformed path and query parameters never reach SQL as a failed cast", () => {
  const all = operations()

  it("walks every operation", () => {
    expect(all.length).toBeGreaterThan(30)
  })

  it.each(all.filter((op) => op.parameters.length > 0).map((op) => [`${op.method} ${op.path}`, op] as const))(
    "%s answers every malformed value with a 4xx problem",
    async (_name, op) => {
      const failures: Array<string> = []
      for (const target of op.parameters) {
        for (const value of malformed) {
          let path = op.path
          const query = new URLSearchParams()
          for (const parameter of op.parameters) {
            const chosen = parameter === target ? value : parameter.in === "path" ? validUuid : undefined
            if (chosen === undefined) continue
            if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, encodeURIComponent(chosen))
            else query.set(parameter.name, chosen)
          }
          if (op.path.includes("/search") && target.name !== "q") query.set("q", "vacation")
          const response = await fetch(`${server.url}${path}${query.size > 0 ? `?${query}` : ""}`, {
            method: op.method,
            headers: { authorization: `Bearer ${server.adminToken}`, ...(op.hasJsonBody ? { "content-type": "application/json" } : {}) },
            ...(op.hasJsonBody ? { body: "{}" } : {})
          })
          await response.arrayBuffer()
          if (response.status >= 500) failures.push(`${target.name}=${JSON.stringify(value).slice(0, 40)} -> ${response.status}`)
          else if (response.status >= 400 && !(response.headers.get("content-type") ?? "").startsWith("application/problem+json")) {
            failures.push(`${target.name}=${JSON.stringify(value).slice(0, 40)} -> ${response.status} without problem+json`)
          }
        }
      }
      expect(failures).toEqual([])
    }
  )
})
