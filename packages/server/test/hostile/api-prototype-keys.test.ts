import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 29, finding 1 on /api: a JSON body holding `__proto__`, `constructor` or `prototype` at any depth (or
 * as a segment of a dotted key) is refused with 400 VALIDATION_FAILED before a handler or library sees it. The
 * server runs in this process, so a pollution would show on this process's Object.prototype.
 */

let server: TestServer
let spaceId: string

const raw = (method: string, path: string, body: string) =>
  fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/json" },
    body
  }).then(async (response) => ({ status: response.status, type: response.headers.get("content-type") ?? "", body: await response.json() as Record<string, any> }))

beforeAll(async () => {
  server = await startTestServer()
  const created = await raw("POST", "/api/admin/knowledge-spaces", JSON.stringify({ key: "proto", name: "Proto" }))
  spaceId = created.body.id
})
afterAll(() => server?.dispose())

describe("prototype keys in /api JSON bodies", () => {
  const bodies = () => [
    `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"__proto__":{"polluted":"yes"}}}`,
    `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"constructor":{"prototype":{"polluted":"yes"}}}}`,
    `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"description":"x","nested":[{"deep":{"prototype":1}}]}}`,
    `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"a.__proto__.polluted":"yes"}}`,
    `{"__proto__":{"polluted":"yes"},"knowledgeSpaceId":"${spaceId}","sourceConfig":{}}`,
    // JSON escapes spell the same key without its letters appearing in the text.
    `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"\\u005f_proto__":{"polluted":"yes"}}}`
  ]

  it("are refused with 400 VALIDATION_FAILED, and nothing is polluted or saved", async () => {
    for (const body of bodies()) {
      const reply = await raw("PUT", "/api/admin/connectors/PUSH/proto", body)
      expect(reply.status, body).toBe(400)
      expect(reply.type).toContain("application/problem+json")
      expect(reply.body.code).toBe("VALIDATION_FAILED")
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(typeof Object.prototype.hasOwnProperty).toBe("function")
    const listed = await fetch(`${server.url}/api/admin/connectors/PUSH`, { headers: { authorization: `Bearer ${server.adminToken}` } })
    expect(await listed.json()).toEqual([])
  })

  it("a body nested deeper than 64 levels is refused too, and the server keeps answering", async () => {
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`
    const reply = await raw("PUT", "/api/admin/connectors/PUSH/proto", `{"knowledgeSpaceId":"${spaceId}","sourceConfig":{"description":${deep}}}`)
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe("VALIDATION_FAILED")
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
  })

  it("ordinary bodies still pass", async () => {
    const reply = await raw("PUT", "/api/admin/connectors/PUSH/proto", JSON.stringify({ knowledgeSpaceId: spaceId, sourceConfig: { description: "constructors and prototypes, as words" } }))
    expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  })
})
