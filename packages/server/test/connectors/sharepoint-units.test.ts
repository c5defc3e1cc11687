import type { Permission } from "@microsoft/microsoft-graph-types"
import { describe, expect, it } from "vitest"
import { parseConnectorBaseUrls, Settings } from "../../src/Config"
import { aclOfPermissions, emailOfLoginName, organizationId, parseSiteGroupId, siteGroupId } from "../../src/connectors/sharepoint/Acl"
import { sharePointClient } from "../../src/connectors/sharepoint/Client"
import { readSharePointConfig, readSharePointCredential } from "../../src/connectors/sharepoint/Config"
import { drivesToRetire, parseItemExternalId, readingOf } from "../../src/connectors/sharepoint/Crawl"
import { personalHostOf } from "../../src/connectors/sharepoint/Config"
import { canvasHtml, isSitePage } from "../../src/connectors/sharepoint/Pages"
import { makeCertificate } from "./sharepoint-site"

/** The SHAREPOINT kind's parsers and mappings, each with its hostile input (issue 30, point 7). */

const TENANT = "0b1c2d3e-0000-4000-8000-00000000aaaa"
const settings = Settings.make({ dataDir: "/tmp/unused" })
const errorPaths = (read: ReturnType<typeof readSharePointConfig>) => (read.ok ? [] : read.errors.map((e) => e.path))
const config = { tenantId: TENANT, clientId: "c11e0000-0000-4000-8000-00000000cccc", sharepointHost: "https://acme.sharepoint.com" }

describe("LORE_CONNECTOR_BASE_URLS", () => {
  it("reads name=url pairs for the listed names and refuses the rest", () => {
    expect(parseConnectorBaseUrls("graph=http://127.0.0.1:4000/, login = https://login.microsoftonline.us")).toEqual({ urls: { graph: "http://127.0.0.1:4000", login: "https://login.microsoftonline.us" } })
    expect(parseConnectorBaseUrls("")).toEqual({ urls: {} })
    expect(parseConnectorBaseUrls("__proto__=http://x")).toHaveProperty("error")
    expect(parseConnectorBaseUrls("graph=ftp://x")).toHaveProperty("error")
    expect(parseConnectorBaseUrls("graph=https://user:pw@x")).toHaveProperty("error")
    expect(parseConnectorBaseUrls("graph=https://x/?token=1")).toHaveProperty("error")
    expect(parseConnectorBaseUrls("graph")).toHaveProperty("error")
  })
})

describe("the SharePoint sourceConfig", () => {
  it("accepts ids, site URLs on the host and emails", () => {
    const read = readSharePointConfig({ ...config, sites: ["https://acme.sharepoint.com/sites/eng/", "acme.sharepoint.com,2c4a0000-0000-4000-8000-000000000001,7f1e0000-0000-4000-8000-000000000002"], users: ["Ann@Acme.com"] }, settings)
    expect(read).toMatchObject({ ok: true, config: { sharepointHost: "https://acme.sharepoint.com", users: ["ann@acme.com"] } })
  })
  it("names each bad field: private host, site on another host, path on the host, too many sites, unknown keys", () => {
    const read = readSharePointConfig({ tenantId: "x".repeat(300), clientId: 7, sharepointHost: "http://10.0.0.5", sites: ["https://evil.example.com/sites/a", "../../etc"], users: "ann", __proto__: { polluted: true }, constructor: 1 } as never, settings)
    expect(read.ok).toBe(false)
    const paths = errorPaths(read)
    expect(paths).toEqual(expect.arrayContaining(["sourceConfig.tenantId", "sourceConfig.clientId", "sourceConfig.sharepointHost", "sourceConfig.users", "sourceConfig.constructor"]))
    const withPath = readSharePointConfig({ ...config, sharepointHost: "https://acme.sharepoint.com/sites/eng" }, settings)
    expect(errorPaths(withPath)).toEqual(["sourceConfig.sharepointHost"])
    const many = readSharePointConfig({ ...config, sites: Array.from({ length: 501 }, (_, i) => `https://acme.sharepoint.com/sites/s${i}`) }, settings)
    expect(errorPaths(many)).toEqual(["sourceConfig.sites"])
    const other = readSharePointConfig({ ...config, sites: ["https://evil.example.com/sites/a"] }, settings)
    expect(errorPaths(other)).toEqual(["sourceConfig.sites.0"])
  })
})

describe("the SharePoint credential", () => {
  const pair = makeCertificate()
  it("keeps a matching certificate and RSA key, and refuses others without repeating them", () => {
    expect(readSharePointCredential(pair)).toMatchObject({ ok: true })
    const results = [
      readSharePointCredential({ certificatePem: pair.certificatePem, privateKeyPem: makeCertificate().privateKeyPem }),
      readSharePointCredential({ certificatePem: "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----", privateKeyPem: pair.privateKeyPem }),
      readSharePointCredential({ ...pair, clientSecret: "s3cr3t-value" }),
      readSharePointCredential({ certificatePem: "x".repeat(70_000), privateKeyPem: pair.privateKeyPem }),
      readSharePointCredential([pair]),
      readSharePointCredential("a string")
    ]
    for (const result of results) {
      expect(result.ok).toBe(false)
      const message = (result as { message: string }).message
      expect(message).not.toContain("PRIVATE KEY")
      expect(message).not.toContain("s3cr3t-value")
    }
  })
})

describe("driveItem permissions as an ACL", () => {
  const SITE = "acme.sharepoint.com,1,2"
  it("reads users, Entra groups, site groups, organization links; anyone links admit only those they list", () => {
    const permissions = [
      { id: "1", roles: ["read"], grantedToV2: { user: { id: "u-ann", displayName: "Ann" } }, inheritedFrom: { id: "root" } },
      { id: "2", roles: ["write"], grantedToV2: { group: { id: "g-eng", displayName: "Engineering" } } },
      { id: "3", roles: ["read"], grantedToV2: { siteGroup: { id: "5", displayName: "Visitors", loginName: "Visitors" } } },
      { id: "4", roles: ["read"], link: { scope: "organization", type: "view" } },
      { id: "5", roles: ["read"], link: { scope: "anonymous", type: "view" }, grantedToIdentitiesV2: [] },
      { id: "6", roles: ["read"], link: { scope: "anonymous", type: "view" }, grantedToIdentitiesV2: [{ user: { id: "u-ben", displayName: "Ben" } }] },
      { id: "7", roles: ["read"], grantedToV2: { user: { id: "u-expired" } }, expirationDateTime: "2001-01-01T00:00:00Z" },
      { id: "8", roles: [], grantedToV2: { user: { id: "u-norole" } } },
      { id: "9", roles: ["read"], grantedToV2: { siteUser: { id: "14", displayName: "Cy", loginName: "i:0#.f|membership|cy@acme.com" } } }
    ] satisfies Array<Permission>
    const acl = aclOfPermissions(permissions, TENANT, SITE)
    expect(acl.users.map((u) => u.id).sort()).toEqual(["u-ann", "u-ben", "upn:cy@acme.com"])
    expect(acl.groups.map((g) => g.id).sort()).toEqual(["g-eng", siteGroupId(SITE, "5")])
    expect(acl.organizations).toEqual([{ id: organizationId(TENANT), displayName: "People in the organization" }])
    expect(aclOfPermissions([permissions[4]!], TENANT, SITE)).toEqual({ users: [], groups: [] })
  })
  it("parses ids and login names strictly", () => {
    expect(parseSiteGroupId(siteGroupId(SITE, "5"))).toEqual({ siteId: SITE, groupId: "5" })
    expect(parseSiteGroupId("sitegroup:a|5) or 1=1")).toBeNull()
    expect(emailOfLoginName("i:0#.f|membership|Ann@Acme.com")).toBe("ann@acme.com")
    expect(emailOfLoginName("c:0(.s|true")).toBeNull()
    expect(emailOfLoginName("i:0#.f|membership|" + "a".repeat(400) + "@x.com")).toBeNull()
    expect(parseItemExternalId("b!abc/01XYZ")).toEqual({ driveId: "b!abc", itemId: "01XYZ" })
    expect(parseItemExternalId("b!abc/../../x")).toBeNull()
  })
  it("reads, converts or skips by format", () => {
    expect(readingOf({ name: "a.docx" })).toBe("AS_IS")
    expect(readingOf({ name: "a.PPTX" })).toBe("PDF")
    expect(readingOf({ name: "a.xls" })).toBe("PDF")
    expect(readingOf({ name: "a.zip", file: { mimeType: "application/zip" } })).toBe("SKIP")
    expect(readingOf({ name: "noext", file: { mimeType: "text/plain" } })).toBe("AS_IS")
  })
})

describe("the Graph client", () => {
  it("refuses a nextLink to another host, and Graph on a private address unless allowed", async () => {
    const pair = makeCertificate()
    const read = readSharePointConfig(config, settings)
    if (!read.ok) throw new Error("config")
    const client = sharePointClient(read.config, pair, Settings.make({ dataDir: "/tmp/unused", connectorBaseUrls: { graph: "http://127.0.0.1:9", login: "http://127.0.0.1:9" } }))
    await expect(client.graph("https://evil.example.com/v1.0/users")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
    // The token request itself goes through the guard: a loopback Entra not in LORE_ALLOWED_PRIVATE_HOSTS is refused.
    await expect(client.graph("/v1.0/users")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
  })
})

describe("a stored delta token on another Graph host", () => {
  it("is treated as expired: the drive is walked again from the start, nothing is fetched from the old host", async () => {
    const { Effect } = await import("effect")
    const { crawlSharePoint } = await import("../../src/connectors/sharepoint/Crawl")
    const pair = makeCertificate()
    const cursor = {
      active: true, startedAt: new Date().toISOString(), driveIndex: 0, next: null, resyncSince: null, reconcileAfter: null, phase: "ITEMS",
      drives: [{ id: "b!d", name: "Docs", siteId: null, webUrl: null }],
      deltaLinks: { "b!d": "https://graph.old-cloud.example/v1.0/drives/b!d/root/delta?token=9" }
    }
    const page = await Effect.runPromise(crawlSharePoint({ sourceConfig: config, credential: JSON.stringify(pair), settings }, cursor))
    expect(page.failures ?? []).toEqual([])
    expect(page.done).toBe(false)
    expect(page.checkpoint).toMatchObject({ next: "/v1.0/drives/b!d/root/delta", deltaLinks: {} })
    expect((page.checkpoint as { resyncSince: string | null }).resyncSince).not.toBeNull()
  })
})

describe("the personal-sites (-my) host", () => {
  it("is the SharePoint Online host's -my sibling, or what LORE_CONNECTOR_BASE_URLS sharepoint-my names; none for other hosts", () => {
    expect(personalHostOf("https://acme.sharepoint.com", settings)).toBe("https://acme-my.sharepoint.com")
    expect(personalHostOf("https://contoso.sharepoint.us", settings)).toBe("https://contoso-my.sharepoint.us")
    expect(personalHostOf("https://acme-my.sharepoint.com", settings)).toBeNull()
    expect(personalHostOf("https://intranet.example.com", settings)).toBeNull()
    expect(personalHostOf("https://evil.sharepoint.com.example.net", settings)).toBeNull()
    expect(personalHostOf("http://127.0.0.1:4000", Settings.make({ dataDir: "/tmp/unused", connectorBaseUrls: { "sharepoint-my": "http://127.0.0.1:4001/" } }))).toBe("http://127.0.0.1:4001")
  })
  it("is the only other host the client sends a SharePoint token to", async () => {
    const read = readSharePointConfig(config, settings)
    if (!read.ok) throw new Error("config")
    const client = sharePointClient(read.config, makeCertificate(), settings)
    expect(client.isSharePointOrigin("https://acme-my.sharepoint.com")).toBe(true)
    expect(client.isSharePointOrigin("https://acme.sharepoint.com")).toBe(true)
    expect(client.isSharePointOrigin("https://other-my.sharepoint.com")).toBe(false)
    await expect(client.sharepoint("/personal/x/_api/web", "https://evil.example.com")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
  })
})

describe("site pages", () => {
  it("are the .aspx files of a Site Pages library, read as their web parts in reading order", () => {
    expect(isSitePage({ pages: true }, { name: "Home.ASPX" })).toBe(true)
    expect(isSitePage({ pages: true }, { name: "logo.png" })).toBe(false)
    expect(isSitePage({}, { name: "Home.aspx" })).toBe(false)
    const html = canvasHtml({
      canvasLayout: {
        horizontalSections: [{ columns: [{ webparts: [{ innerHtml: "<p>First</p>" } as never, { data: { title: "Quick links", description: "<b>not html</b>", serverProcessedContent: { searchablePlainTexts: [{ key: "k", value: "Indexed text" }] } } } as never] }] }],
        verticalSection: { webparts: [{ innerHtml: "<p>Aside</p>" } as never] }
      }
    })
    expect(html).toBe("<p>First</p>\n<p>Quick links</p>\n<p>&lt;b&gt;not html&lt;/b&gt;</p>\n<p>Indexed text</p>\n<p>Aside</p>")
  })
  it("bound a hostile canvas: too many web parts, huge text", () => {
    const many = Array.from({ length: 50_000 }, () => ({ innerHtml: "<p>x</p>" }) as never)
    expect(canvasHtml({ canvasLayout: { horizontalSections: [{ columns: [{ webparts: many }] }] } }).split("\n")).toHaveLength(2000)
    const huge = canvasHtml({ canvasLayout: { verticalSection: { webparts: [{ innerHtml: "y".repeat(5_000_000) } as never] } } })
    expect(huge.length).toBe(2_000_000)
    expect(canvasHtml({ canvasLayout: null, webParts: null })).toBe("")
  })
})

describe("drives the connection no longer covers", () => {
  const drive = (id: string, owner: string) => ({ id, name: id, siteId: null, webUrl: null, owner })
  it("are retired when their site was taken out or no longer has them, kept while their site cannot be read", () => {
    const cursor = { deltaLinks: { a: "l", b: "l", c: "l", legacy: "l" }, driveOwners: { a: "site-1", b: "site-2", c: "site-3" } }
    // site-2 was taken out of sourceConfig; site-3 failed to resolve this time; the legacy drive has no known owner.
    expect(drivesToRetire(cursor, [drive("a", "site-1")], new Set(["site-3"])).sort()).toEqual(["b"])
    expect(drivesToRetire(cursor, [drive("a", "site-1")], new Set()).sort()).toEqual(["b", "c", "legacy"])
    expect(drivesToRetire({ deltaLinks: {} }, [], new Set())).toEqual([])
  })
})
