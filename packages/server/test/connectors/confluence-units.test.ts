import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import { ConfluenceError, confluenceClient } from "../../src/connectors/confluence/Client"
import { readConfluenceConfig, readConfluenceCredential } from "../../src/connectors/confluence/Config"
import { governingContentId } from "../../src/connectors/confluence/Crawl"
import { storageToText } from "../../src/connectors/confluence/Render"

/** The Confluence kind's parsers and its client, each with its hostile case. */
describe("Confluence parsers and client", () => {
  it("renders storage format to text with its headings, and survives deep nesting", () => {
    const text = storageToText("Runbook", `<h1>Start</h1><p>First &amp; foremost</p><ac:structured-macro ac:name="info"><ac:parameter ac:name="title">hidden param</ac:parameter><ac:rich-text-body><p>Macro body</p></ac:rich-text-body></ac:structured-macro><h2>Then</h2><ul><li>one</li><li>two</li></ul><table><tr><th>a</th><td>b</td></tr></table>`)
    expect(text).toContain("# Runbook")
    expect(text).toContain("## Start")
    expect(text).toContain("### Then")
    expect(text).toContain("First & foremost")
    expect(text).toContain("Macro body")
    expect(text).not.toContain("hidden param")
    expect(text).toContain("- one")
    const deep = "<div>".repeat(20_000) + "<p>zqdeep</p>" + "</div>".repeat(20_000)
    expect(storageToText("Deep", deep)).toContain("zqdeep")
  })

  it("reads credentials without echoing them, and refuses other shapes", () => {
    expect(readConfluenceCredential({ email: "a@example.com", apiToken: "t0ken" })).toMatchObject({ ok: true })
    expect(readConfluenceCredential({ token: "pat" })).toMatchObject({ ok: true })
    for (const bad of ["secret-string", { token: "x", extra: "secret-extra" }, { email: "no-at", apiToken: "secret-token" }, { token: "a\nb" }, { token: "x".repeat(5000) }, null, ["secret"]]) {
      const read = readConfluenceCredential(bad)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.message).not.toMatch(/secret|xxxx/)
    }
  })

  it("refuses private addresses, userinfo and unknown settings in the config", () => {
    const settings = Settings.make({ dataDir: "/tmp" })
    const read = readConfluenceConfig({ deployment: "CLOUD", baseUrl: "http://127.0.0.1:9/wiki", spaces: ["ENG"], __proto__x: 1 }, settings)
    expect(read.ok).toBe(false)
    if (!read.ok) expect(read.errors.map((e) => e.path)).toEqual(expect.arrayContaining(["sourceConfig.baseUrl", "sourceConfig.__proto__x"]))
    const userinfo = readConfluenceConfig({ deployment: "CLOUD", baseUrl: "https://user:pw@acme.atlassian.net/wiki", spaces: ["ENG"] }, settings)
    expect(userinfo.ok).toBe(false)
  })

  it("maps only its own external ids to content ids", () => {
    expect(governingContentId("page:123")).toBe("123")
    expect(governingContentId("attachment:123:att456")).toBe("123")
    for (const hostile of ["page:../../admin", "page:1 OR 1=1", "attachment:1:../x", "page:" + "9".repeat(40), "__proto__"]) expect(governingContentId(hostile)).toBeNull()
  })

  it("follows no link to another site, and gives up on endless throttling", async () => {
    let served = 0
    const server = createServer((req, res) => {
      served++
      if (req.url?.startsWith("/wiki/throttled")) {
        res.writeHead(429, { "retry-after": "0" })
        return res.end()
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ results: [], size: 0, _links: { self: "/x", next: "http://169.254.169.254/latest/meta-data" } }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`
    try {
      const settings = Settings.make({ dataDir: "/tmp", allowedPrivateHosts: [host] })
      const client = confluenceClient({ deployment: "CLOUD", baseUrl: `http://${host}/wiki`, spaces: ["ENG"], reconcileEveryHours: 24 }, { token: "t" }, settings)
      const page = await client.json<{ _links: { next: string } }>("/rest/api/content")
      await expect(client.json(page._links.next)).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
      await expect(client.json("/throttled")).rejects.toBeInstanceOf(ConfluenceError)
      expect(served).toBe(1 + 5)
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
