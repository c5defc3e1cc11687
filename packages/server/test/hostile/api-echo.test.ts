import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openApiDocument } from "../../scripts/generate-openapi"
import { startTestServer, type TestServer } from "../support/server"

/**
 * No /api response repeats more than 200 bytes of caller input (docs/security.md). Every operation of the
 * OpenAPI document is called with long values in each path and query parameter and in every string field of
 * its JSON body (plus an unknown long key), and an unknown route and a wrong method with a long path; the
 * longest run of the input found in any response must be at most 200 bytes.
 */

const MAX_ECHO = 200

/**
 * Input made of numbered 7-byte tokens (`zq0001~`), so the longest run of it inside a response can be
 * measured exactly: each token says where in the input it came from.
 */
const marker = (bytes: number, offset = 0) => {
  let text = ""
  for (let i = offset; text.length < bytes; i++) text += `zq${i.toString(36).padStart(4, "0")}~`
  return text.slice(0, bytes)
}
/** One long input that every value below is a window of: an echo of any of them is found in it. */
const INPUT = marker(2_000_000)

/** The longest stretch of INPUT that appears in `text`. */
const longestEcho = (text: string): number => {
  let longest = 0
  let covered = 0
  for (const match of text.matchAll(/zq([0-9a-z]{4})~/g)) {
    // A token inside the run just measured adds nothing (and measuring it again would be quadratic).
    if (match.index < covered) continue
    const at = parseInt(match[1]!, 36) * 7
    let back = 0
    while (match.index - back - 1 >= 0 && at - back - 1 >= 0 && text[match.index - back - 1] === INPUT[at - back - 1]) back++
    let forward = 0
    while (match.index + forward < text.length && at + forward < INPUT.length && text[match.index + forward] === INPUT[at + forward]) forward++
    longest = Math.max(longest, back + forward)
    covered = match.index + forward
  }
  return longest
}

/** `bytes` bytes of INPUT from byte `start`. */
const slice = (start: number, bytes: number) => {
  if (start + bytes > INPUT.length) throw new Error("the test's input is too short for this window")
  return INPUT.slice(start, start + bytes)
}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

interface Operation {
  readonly method: string
  readonly path: string
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly in: string }>
  readonly body: unknown
}

const document = JSON.parse(openApiDocument())

const resolve = (schema: any): any => {
  if (schema?.$ref) return resolve(document.components.schemas[schema.$ref.split("/").at(-1)])
  return schema
}

/** A body of the operation's shape with every free string replaced by a long window of INPUT. */
const fill = (raw: any, depth: number, next: () => string): unknown => {
  const schema = resolve(raw)
  if (!schema || depth > 5) return next()
  const choice = schema.anyOf ?? schema.oneOf
  if (choice) return fill(choice.find((s: any) => resolve(s)?.type !== "null") ?? choice[0], depth + 1, next)
  if (schema.allOf) return fill(schema.allOf[0], depth + 1, next)
  if (schema.enum) return schema.enum[0]
  switch (schema.type) {
    case "object": {
      const value: Record<string, unknown> = {}
      for (const [key, property] of Object.entries<any>(schema.properties ?? {})) value[key] = fill(property, depth + 1, next)
      if (schema.additionalProperties !== false) value[next().slice(0, 3000)] = next()
      return value
    }
    case "array":
      return [fill(schema.items, depth + 1, next)]
    case "integer":
    case "number":
      return 1
    case "boolean":
      return true
    default:
      return next()
  }
}

const operations: ReadonlyArray<Operation> = Object.entries<Record<string, any>>(document.paths).flatMap(([path, methods]) =>
  Object.entries<any>(methods).map(([method, operation]) => {
    let counter = 1000
    const next = () => slice((counter += 3000), 20_000)
    const json = operation.requestBody?.content?.["application/json"]?.schema
    return {
      method: method.toUpperCase(),
      path,
      parameters: (operation.parameters ?? []).filter((p: any) => p.in === "path" || p.in === "query"),
      body: json ? fill(json, 0, next) : undefined
    }
  })
)

const call = async (method: string, url: string, body?: unknown) => {
  const response = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${server.adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  return { status: response.status, text: await response.text() }
}

describe("no /api response repeats more than 200 bytes of caller input", () => {
  it("measures echoes exactly", () => {
    expect(longestEcho(`x${slice(10, 201)}y`)).toBe(201)
    expect(longestEcho(`x${slice(10, 150)}…${slice(500, 150)}`)).toBe(150)
    expect(longestEcho(JSON.stringify({ detail: `No ${slice(300_000, 100_000)} here` }))).toBe(100_000)
    expect(longestEcho("nothing here")).toBe(0)
  })

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))("%s", async (_name, op) => {
    const echoes: Array<string> = []
    // Long path and query parameters (a valid-looking body, so the parameters are what is wrong).
    let path = op.path
    const query = new URLSearchParams()
    op.parameters.forEach((parameter, i) => {
      const value = slice(100_000 + i * 2000, parameter.in === "path" ? 1500 : 4000)
      if (parameter.in === "path") path = path.replace(`{${parameter.name}}`, value)
      else query.set(parameter.name, value)
    })
    const withParameters = await call(op.method, `${path}${query.size > 0 ? `?${query}` : ""}`, op.body === undefined ? undefined : {})
    if (longestEcho(withParameters.text) > MAX_ECHO) echoes.push(`parameters -> ${withParameters.status}: ${withParameters.text.slice(0, 300)}`)
    // A body with every string long, and an unknown long key.
    if (op.body !== undefined) {
      const concrete = op.path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000")
      const withBody = await call(op.method, concrete, op.body)
      if (longestEcho(withBody.text) > MAX_ECHO) echoes.push(`body -> ${withBody.status}: ${withBody.text.slice(0, 300)}`)
    }
    expect(echoes).toEqual([])
  })

  it("an unknown route and a wrong method do not repeat a long path", async () => {
    const unknown = await call("GET", `/api/${slice(200_000, 20_000)}`)
    expect(unknown.status).toBe(404)
    expect(longestEcho(unknown.text)).toBeLessThanOrEqual(MAX_ECHO)
    const wrongMethod = await call("PATCH", `/api/admin/users/${slice(220_000, 20_000)}`)
    expect(wrongMethod.status).toBeGreaterThanOrEqual(400)
    expect(longestEcho(wrongMethod.text)).toBeLessThanOrEqual(MAX_ECHO)
  })

  it("PUT /api/admin/source-connections/identity-trust with a 100 kB sourceSystem answers without repeating it", async () => {
    const sourceSystem = slice(300_000, 100_000)
    const reply = await call("PUT", "/api/admin/source-connections/identity-trust", { sourceSystem, sourceConnectionKey: slice(250_000, 5000), identityTrust: "TRUSTED" })
    expect(reply.status).toBeGreaterThanOrEqual(400)
    expect(reply.status).toBeLessThan(500)
    expect(longestEcho(reply.text)).toBeLessThanOrEqual(MAX_ECHO)
    expect(reply.text.length).toBeLessThan(4000)
  })
})
