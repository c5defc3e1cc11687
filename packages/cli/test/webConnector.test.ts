import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminApi, serveLore, type ServedLore } from "./support/serve"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"

/**
 * A WEB connection set up from the CLI (issue 16, point 2): `lore connectors add --kind WEB --config` with the
 * site's URL, a credential from stdin, `lore connectors crawl` waits for the crawl, and a user with a grant on
 * the space finds the page's main content. The site is a node:http server on 127.0.0.1; `lore serve` runs with
 * LORE_WEB_ALLOW_PRIVATE_ADDRESSES=1 so it may crawl loopback.
 */

const TOKEN = "Bearer zq-cli-site-token-0123456789"
let server: ServedLore
let site: Server
let siteUrl: string
let home: string
let reader: string
const requests: Array<{ path: string; authorization: string | undefined }> = []
const admin = (args: ReadonlyArray<string>, input?: string) => lore(args, { env: { XDG_CONFIG_HOME: home }, ...(input === undefined ? {} : { input }) })
const ok = async (pending: ReturnType<typeof lore>) => {
  const result = await pending
  expect(result.code, `${result.stderr}${result.stdout}`).toBe(0)
  return result
}

const page = (title: string, text: string, links = "") =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav>zqclinavword ${links}</nav><main><h1>${title}</h1><p>${text}</p></main><footer>zqclifooter</footer></body></html>`

beforeAll(async () => {
  ensureBuilt()
  site = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://site").pathname
    requests.push({ path, authorization: request.headers.authorization })
    if (request.headers.authorization !== TOKEN) return response.writeHead(401).end()
    const pages: Record<string, string> = {
      "/guide/": page("Guide", "The zqcliguide page is the start of the handbook, with enough words to index.", `<a href="setup.html">Setup</a>`),
      "/guide/setup.html": page("Setup", "The zqclisetup page explains the setup of the handbook in plain words.")
    }
    const body = pages[path]
    if (!body) return response.writeHead(404).end()
    response.writeHead(200, { "content-type": "text/html" }).end(body)
  })
  await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
  server = await serveLore({ LORE_WEB_ALLOW_PRIVATE_ADDRESSES: "1" })
  home = newConfigHome()
  const api = adminApi(server)
  const departmentId = (await (await api("POST", "/api/admin/departments", { name: "Docs" })).json()).id
  const space = await (await api("POST", "/api/admin/knowledge-spaces", { key: "handbook", name: "Handbook" })).json()
  expect((await api("POST", `/api/admin/knowledge-spaces/${space.id}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: departmentId })).status).toBe(204)
  const invitation = await (await api("POST", "/api/admin/invitations", { email: "reader@example.com", departmentId })).json()
  const accepted = await (await fetch(`${server.url}/api/invitations/accept`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ code: invitation.invitationCode })
  })).json()
  reader = accepted.token.token
  await ok(admin(["login", "--server", server.url, "--token", server.adminToken]))
}, 120_000)
afterAll(async () => {
  await server?.stop()
  site?.closeAllConnections()
  await new Promise((resolve) => site?.close(resolve))
})

describe("lore connectors with a WEB connection", () => {
  it("adds a WEB connection with --config, crawls it, and a reader finds the pages' main content", { timeout: 180_000 }, async () => {
    const notJson = await admin(["connectors", "add", "--kind", "WEB", "--key", "handbook", "--space", "handbook", "--config", "{baseUrl"])
    expect(notJson.code).toBe(2)
    expect(notJson.stderr).toContain("--config")
    const invalid = await admin(["connectors", "add", "--kind", "WEB", "--key", "handbook", "--space", "handbook", "--config", JSON.stringify({ baseUrl: "ftp://example.com/" }), "--json"])
    expect(invalid.code).toBe(6)
    expect(invalid.stdout + invalid.stderr).toContain("sourceConfig.baseUrl")

    const added = (await ok(admin(["connectors", "add", "--kind", "WEB", "--key", "handbook", "--space", "handbook", "--config", JSON.stringify({ baseUrl: `${siteUrl}/guide/` }), "--json"]))).json()
    expect(added).toMatchObject({ sourceSystem: "WEB", sourceConnectionKey: "handbook", sourceConfig: { baseUrl: `${siteUrl}/guide/` } })
    const edited = (await ok(admin(["connectors", "edit", "handbook", "--kind", "WEB", "--config", JSON.stringify({ maxPages: 10 }), "--json"]))).json()
    expect(edited.sourceConfig).toEqual({ baseUrl: `${siteUrl}/guide/`, maxPages: 10 })
    await ok(admin(["connectors", "credential", "handbook", "--kind", "WEB", "--credential-stdin"], TOKEN))

    const tested = await ok(admin(["connectors", "test", "handbook", "--kind", "WEB", "--json"]))
    expect(tested.json()).toMatchObject({ authenticated: true, errorCode: null })
    const crawled = (await ok(admin(["connectors", "crawl", "handbook", "--kind", "WEB", "--json"]))).json()
    expect(crawled.recentAttempts[0]).toMatchObject({ outcome: "SUCCEEDED", objectsMaterialized: 2 })
    expect(JSON.stringify(crawled)).not.toContain("zq-cli-site-token")
    expect(requests.filter((r) => r.path.startsWith("/guide/")).every((r) => r.authorization === TOKEN)).toBe(true)

    const found = async (words: string) => {
      for (let i = 0; i < 60; i++) {
        const result = await ok(lore(["search", words, "--json"], { env: { LORE_SERVER: server.url, LORE_TOKEN: reader } }))
        const evidence = result.json().evidence ?? []
        if (evidence.length > 0) return JSON.stringify(evidence)
        await new Promise((resolve) => setTimeout(resolve, 500))
      }
      return ""
    }
    expect(await found("zqclisetup")).toContain("Setup")
    expect(await found("zqcliguide")).toContain("Guide")
    const chrome = await ok(lore(["search", "zqclinavword", "--json"], { env: { LORE_SERVER: server.url, LORE_TOKEN: reader } }))
    expect(chrome.json().evidence ?? []).toEqual([])
  })
})
