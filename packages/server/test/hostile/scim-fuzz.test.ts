import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CORE_GROUP, enabledConnection, ERROR_SCHEMA, oktaUser, PATCH_OP, scimClient } from "../provisioning/support"
import { http } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Random and hostile requests against every SCIM route, in the spirit of test/http/fuzz-parameters.test.ts for
 * /api: malformed paths, query parameters, bodies and headers. Whatever arrives, the answer is never a 5xx,
 * every error is SCIM's error schema, nothing hangs, and no error repeats more than 200 bytes of what was sent.
 * The generator is seeded, so a failure names a case that reproduces.
 */
let server: TestServer
let token = ""
let userId = ""
let groupId = ""

const MAX_ECHO = 200
/** Every status answered, so the last case can check the fuzzing got past authentication and parsing. */
const seen = new Set<number>()
const REQUESTS_PER_ROUTE = 45

beforeAll(async () => {
  server = await startTestServer()
  token = (await enabledConnection(http(server.url, server.adminToken), { alias: "fuzz" })).token
  const scim = scimClient(server.url, token)
  userId = (await scim("POST", "/Users", oktaUser("fuzz-target@example.com"))).body.id
  groupId = (await scim("POST", "/Groups", { schemas: [CORE_GROUP], displayName: "Fuzz target", members: [{ value: userId }] })).body.id
})
afterAll(() => server?.dispose())

/** mulberry32: a small seeded generator, so every case is reproducible from its seed. */
const generator = (seed: number) => {
  let state = seed >>> 0
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number) => Math.floor(next() * n)
  const pick = <T>(items: ReadonlyArray<T>): T => items[int(items.length)]!
  return { next, int, pick }
}
type Random = ReturnType<typeof generator>

/** A run of letters no server text contains by chance: finding 201 of its bytes in an answer means an echo. */
const markerOf = (random: Random, length = 600) =>
  "Mk" + Array.from({ length: length - 2 }, () => "bcdfghjkmnpqrstvwxz"[random.int(19)]).join("")

const echoes = (text: string, marker: string) => {
  for (let i = 0; i + MAX_ECHO + 1 <= marker.length; i++) if (text.includes(marker.slice(i, i + MAX_ECHO + 1))) return true
  return false
}

const strings = (random: Random, marker: string): string => random.pick([
  marker, "", " ", "%", "%E0%A4%A", "%00", "\u0000", "%ED%A0%80", "\uD800", "é😀", "__proto__", "constructor.prototype.x", "urn:x:__proto__",
  "' OR 1=1 --", "../../etc/passwd", "-1", "0", "1e309", "NaN", "99999999999999999999", "9".repeat(400), "true", "False", "null",
  "2026-13-45T99:99:99Z", "-271821-04-20T00:00:00Z", "00000000-0000-4000-8000-000000000000", "not-a-uuid", userId, groupId,
  `${"not (".repeat(200)}a eq 1`, `userName eq "${marker}"`, "emails[type eq \"work\"].value", "members[value eq \"x\"]"
])

/** Arbitrary JSON: wrong types, denied keys, deep nesting, long strings. */
const jsonValue = (random: Random, marker: string, depth = 0): unknown => {
  const choice = random.int(depth > 4 ? 4 : 8)
  switch (choice) {
    case 0: return strings(random, marker)
    case 1: return random.pick([0, -1, 1.5, 2 ** 53, -(2 ** 31), 1e308])
    case 2: return random.pick([true, false, null])
    case 3: return random.pick(["True", "False", "yes", ""])
    case 4:
    case 5: return Array.from({ length: random.int(4) }, () => jsonValue(random, marker, depth + 1))
    default: {
      const keys = ["userName", "emails", "name", "active", "displayName", "members", "value", "primary", "type", "schemas", "externalId",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User", "Operations", "op", "path", marker.slice(0, 300), "__proto__.x", "constructor"]
      return Object.fromEntries(Array.from({ length: 1 + random.int(5) }, () => [random.pick(keys), jsonValue(random, marker, depth + 1)]))
    }
  }
}

const patchBody = (random: Random, marker: string) => ({
  schemas: random.next() < 0.8 ? [PATCH_OP] : jsonValue(random, marker),
  Operations: Array.from({ length: 1 + random.int(3) }, () => ({
    op: random.pick(["add", "Replace", "remove", "REMOVE", "copy", "", marker]),
    ...(random.next() < 0.8 ? { path: strings(random, marker) } : {}),
    ...(random.next() < 0.8 ? { value: jsonValue(random, marker) } : {})
  }))
})

const body = (random: Random, marker: string, method: string): string | undefined => {
  // fetch sends no body with GET; DELETE sometimes carries junk.
  if (method === "GET") return undefined
  if (method === "DELETE") return random.next() < 0.2 ? marker : undefined
  switch (random.int(9)) {
    case 0: return marker
    case 1: return "{" + marker
    case 2: return `${"[".repeat(5000)}${"]".repeat(5000)}`
    case 3: return `{"a":${"{\"a\":".repeat(3000)}1${"}".repeat(3000)}}`
    case 4: return JSON.stringify(jsonValue(random, marker))
    case 5: return JSON.stringify(patchBody(random, marker))
    case 6: return JSON.stringify({ ...oktaUser(`fuzz-${random.int(1e9)}@example.com`), displayName: marker, nickName: jsonValue(random, marker) })
    case 7: return JSON.stringify({ schemas: [CORE_GROUP], displayName: random.next() < 0.5 ? marker : `g${random.int(1e9)}`, members: jsonValue(random, marker) })
    default: return ""
  }
}

/** encodeURIComponent, except that a lone surrogate (which it cannot encode) goes as the raw bytes' escapes. */
const encode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return "%ED%A0%80"
  }
}

const query = (random: Random, marker: string) => {
  const params: Array<string> = []
  const names = ["filter", "startIndex", "count", "attributes", "excludedAttributes", marker.slice(0, 250)]
  for (let i = random.int(4); i > 0; i--) {
    const name = random.pick(names)
    const value = strings(random, marker)
    params.push(random.next() < 0.85 ? `${encode(name)}=${encode(value)}` : `${name}=${value.replace(/[#?\s]/g, "")}`)
  }
  return params.length > 0 ? `?${params.join("&")}` : ""
}

const idSegment = (random: Random, marker: string) => random.pick([
  () => userId, () => groupId, () => "00000000-0000-4000-8000-000000000000", () => marker, () => "%E0%A4%A", () => "%2F..%2F",
  () => encode(strings(random, marker)), () => `${userId}/${marker}`
])()

const headers = (random: Random, marker: string, hasBody: boolean): Record<string, string> => {
  const auth = random.next()
  return {
    ...(auth < 0.85 ? { authorization: `Bearer ${token}` } : auth < 0.92 ? { authorization: `Bearer ${marker}` } : {}),
    ...(hasBody ? { "content-type": random.pick(["application/scim+json", "application/json", "text/plain", marker.slice(0, 300)]) } : {}),
    ...(random.next() < 0.3 ? { "x-forwarded-host": random.pick(["evil.example", marker.slice(0, 300)]), "x-forwarded-proto": random.pick(["https", marker.slice(0, 50)]) } : {}),
    ...(random.next() < 0.2 ? { "if-match": marker.slice(0, 300), accept: marker.slice(0, 300) } : {})
  }
}

const routes: ReadonlyArray<readonly [string, string]> = [
  ["GET", "/Users"], ["POST", "/Users"], ["GET", "/Users/{id}"], ["PUT", "/Users/{id}"], ["PATCH", "/Users/{id}"], ["DELETE", "/Users/{id}"],
  ["GET", "/Groups"], ["POST", "/Groups"], ["GET", "/Groups/{id}"], ["PUT", "/Groups/{id}"], ["PATCH", "/Groups/{id}"], ["DELETE", "/Groups/{id}"],
  ["GET", "/ServiceProviderConfig"], ["GET", "/ResourceTypes"], ["GET", "/ResourceTypes/{id}"], ["GET", "/Schemas"], ["GET", "/Schemas/{id}"],
  ["POST", "/ServiceProviderConfig"], ["PATCH", "/Users"], ["GET", "/{id}"], ["OPTIONS", "/Users"], ["PROPFIND", "/Groups/{id}"]
]

describe("fuzzing every SCIM route", () => {
  it.each(routes.map(([method, path], index) => [`${method} ${path}`, method, path, 1000 + index] as const))(
    "%s: no 5xx, SCIM errors only, no hang, no echo",
    async (_name, method, template, seed) => {
      const random = generator(seed)
      const failures: Array<string> = []
      for (let n = 0; n < REQUESTS_PER_ROUTE; n++) {
        const marker = markerOf(random)
        // DELETE only ever targets unknown ids: the fixtures stay for the other requests.
        const id = method === "DELETE" ? random.pick([marker, "00000000-0000-4000-8000-000000000000", "%E0%A4%A"]) : idSegment(random, marker)
        const path = `/scim/v2${template.replace("{id}", id)}${query(random, marker)}`
        const payload = body(random, marker, method)
        const started = Date.now()
        let response: Response
        try {
          response = await fetch(`${server.url}${path}`, {
            method, headers: headers(random, marker, payload !== undefined), body: payload, signal: AbortSignal.timeout(15_000)
          })
        } catch (error) {
          failures.push(`#${n} ${method} ${path.slice(0, 80)}: no answer (${(error as Error).name}) after ${Date.now() - started} ms`)
          continue
        }
        const text = await response.text()
        seen.add(response.status)
        const where = `#${n} ${method} ${path.slice(0, 80)} -> ${response.status}`
        if (response.status >= 500) failures.push(`${where}: ${text.slice(0, 200)}`)
        if (response.status >= 400) {
          if (!(response.headers.get("content-type") ?? "").includes("application/scim+json")) failures.push(`${where}: not application/scim+json`)
          let parsed: any
          try {
            parsed = JSON.parse(text)
          } catch {
            failures.push(`${where}: error body is not JSON`)
          }
          if (parsed && (JSON.stringify(parsed.schemas) !== JSON.stringify([ERROR_SCHEMA]) || parsed.status !== String(response.status) || typeof parsed.detail !== "string")) {
            failures.push(`${where}: not the SCIM error schema: ${text.slice(0, 200)}`)
          }
          if (echoes(text, marker) || echoes(JSON.stringify([...response.headers]), marker)) failures.push(`${where}: repeats more than ${MAX_ECHO} bytes of the request`)
        }
      }
      expect(failures).toEqual([])
    }
  )

  it("the fuzzing reached past authentication, parsing and routing", () => {
    for (const status of [200, 201, 400, 401, 404, 405]) expect(seen, [...seen].join(",")).toContain(status)
  })

  it("the fixtures survived and the server still answers", async () => {
    expect((await fetch(`${server.url}/api/health`)).status).toBe(200)
    const scim = scimClient(server.url, token)
    expect((await scim("GET", `/Groups/${groupId}`)).status).toBe(200)
    expect(({} as any).x).toBeUndefined()
  })
})
