import type { drive_v3 } from "@googleapis/drive"
import { generateKeyPairSync } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import { aclOfPermissions, domainPrincipalId, groupPrincipalId, parsePrincipalId } from "../../src/connectors/google-drive/Acl"
import { googleDriveClient, serviceAccountAssertion } from "../../src/connectors/google-drive/Client"
import { readGoogleDriveConfig, readGoogleDriveCredential, type ServiceAccountKey } from "../../src/connectors/google-drive/Config"
import { readingOf } from "../../src/connectors/google-drive/Crawl"
import { fileExternalId, parseFileExternalId } from "../../src/connectors/google-drive/Drives"
import { domainMembership } from "../../src/connectors/google-drive/Groups"
import { makeServiceAccountKey } from "./google-drive-site"

/** The GOOGLE_DRIVE kind's parsers and mappings, each with its hostile input (issue 30, point 8). */

const account = makeServiceAccountKey()
const key = (() => {
  const read = readGoogleDriveCredential(account.key)
  if (!read.ok) throw new Error(read.message)
  return JSON.parse(read.secret) as ServiceAccountKey
})()
const errorPaths = (read: ReturnType<typeof readGoogleDriveConfig>) => (read.ok ? [] : read.errors.map((e) => e.path))

describe("the Google Drive sourceConfig", () => {
  it("accepts an admin subject, shared drive ids and users", () => {
    expect(readGoogleDriveConfig({ adminSubject: "Admin@Acme.com", sharedDrives: ["0AAbCdEfGhIjK_-9"], users: ["Ann@Acme.com"] }))
      .toEqual({ ok: true, config: { adminSubject: "admin@acme.com", sharedDrives: ["0AAbCdEfGhIjK_-9"], users: ["ann@acme.com"] } })
    expect(readGoogleDriveConfig({ adminSubject: "admin@acme.com" })).toMatchObject({ ok: true, config: { sharedDrives: [], users: [] } })
  })
  it("names each bad field: not an email, drive ids that are paths or too many, unknown keys", () => {
    const read = readGoogleDriveConfig({ adminSubject: "x".repeat(400), sharedDrives: ["../../etc", "0AA?x=1"], users: "ann", constructor: 1 } as never)
    expect(errorPaths(read)).toEqual(expect.arrayContaining(["sourceConfig.adminSubject", "sourceConfig.sharedDrives.0", "sourceConfig.sharedDrives.1", "sourceConfig.users", "sourceConfig.constructor"]))
    expect(errorPaths(readGoogleDriveConfig({ adminSubject: "a@b.co", sharedDrives: Array.from({ length: 501 }, (_, i) => `0AAdrive${i}xyz`) }))).toEqual(["sourceConfig.sharedDrives"])
    expect(errorPaths(readGoogleDriveConfig({ adminSubject: "a@b.co", sharedDrives: [] }))).toEqual(["sourceConfig.sharedDrives"])
  })
})

describe("the service-account key", () => {
  it("keeps the fields a token request needs, and refuses others' keys without repeating them", () => {
    const kept = JSON.parse((readGoogleDriveCredential(account.key) as { secret: string }).secret) as Record<string, unknown>
    expect(Object.keys(kept).sort()).toEqual(["client_email", "client_id", "private_key", "private_key_id", "project_id", "token_uri"])
    const { privateKey } = { privateKey: account.key.private_key }
    const ec = generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }).toString()
    const results = [
      readGoogleDriveCredential({ ...account.key, type: "authorized_user" }),
      readGoogleDriveCredential({ ...account.key, private_key: "-----BEGIN PRIVATE KEY-----\ns3cr3t-value\n-----END PRIVATE KEY-----" }),
      readGoogleDriveCredential({ ...account.key, private_key: ec }),
      readGoogleDriveCredential({ ...account.key, private_key: privateKey.repeat(10) }),
      readGoogleDriveCredential({ ...account.key, token_uri: "http://oauth2.googleapis.com/token" }),
      readGoogleDriveCredential({ ...account.key, token_uri: "https://user:pw@oauth2.googleapis.com/token" }),
      readGoogleDriveCredential({ ...account.key, client_email: "not an email" }),
      readGoogleDriveCredential({ ...account.key, private_key_id: "../x" }),
      readGoogleDriveCredential(Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, i]))),
      readGoogleDriveCredential([account.key]),
      readGoogleDriveCredential(JSON.stringify(account.key))
    ]
    for (const result of results) {
      expect(result.ok).toBe(false)
      const message = (result as { message: string }).message
      expect(message).not.toContain("PRIVATE KEY")
      expect(message).not.toContain("s3cr3t-value")
    }
  })
  it("signs an RS256 assertion with kid, sub and aud as Google checks them", () => {
    const [header, payload] = serviceAccountAssertion(key, "ann@acme.com", 1_700_000_000).split(".")
    expect(JSON.parse(Buffer.from(header!, "base64url").toString())).toEqual({ alg: "RS256", typ: "JWT", kid: account.key.private_key_id })
    expect(JSON.parse(Buffer.from(payload!, "base64url").toString())).toMatchObject({ iss: account.key.client_email, sub: "ann@acme.com", aud: "https://oauth2.googleapis.com/token", iat: 1_700_000_000, exp: 1_700_003_600 })
  })
})

describe("Drive permissions as an ACL", () => {
  it("reads users, groups and domains; anyone admits only those listed; deleted, expired and published-only are left out", () => {
    const permissions = [
      { id: "1", type: "user", role: "reader", emailAddress: "Ann@Acme.com", displayName: "Ann" },
      { id: "2", type: "group", role: "writer", emailAddress: "eng@acme.com" },
      { id: "3", type: "domain", role: "commenter", domain: "Acme.com" },
      { id: "4", type: "anyone", role: "reader" },
      { id: "5", type: "user", role: "reader", emailAddress: "gone@acme.com", deleted: true },
      { id: "6", type: "user", role: "reader", emailAddress: "old@acme.com", expirationTime: "2001-01-01T00:00:00Z" },
      { id: "7", type: "user", role: "reader", emailAddress: "web@acme.com", view: "published" },
      { id: "8", type: "user", role: "owner", emailAddress: "boss@acme.com" },
      { id: "9", type: "user", role: "none", emailAddress: "norole@acme.com" }
    ] satisfies Array<drive_v3.Schema$Permission>
    const acl = aclOfPermissions(permissions)
    expect(acl.users.map((u) => u.id).sort()).toEqual(["ann@acme.com", "boss@acme.com"])
    expect(acl.groups).toEqual([{ id: groupPrincipalId("eng@acme.com") }])
    expect(acl.organizations).toEqual([{ id: domainPrincipalId("acme.com"), displayName: "Everyone at acme.com" }])
    expect(aclOfPermissions([permissions[3]!])).toEqual({ users: [], groups: [] })
  })
  it("parses ids strictly and reads, exports or skips by type", () => {
    expect(parsePrincipalId("group:eng@acme.com")).toEqual({ kind: "group", key: "eng@acme.com" })
    expect(parsePrincipalId("group:eng@acme.com/../x")).toBeNull()
    expect(parseFileExternalId(fileExternalId({ kind: "user", id: "ann@acme.com" }, "1AbC_d-9"))).toEqual({ unit: { kind: "user", id: "ann@acme.com" }, fileId: "1AbC_d-9" })
    expect(parseFileExternalId("d:0AA/../../x")).toBeNull()
    expect(readingOf({ mimeType: "application/vnd.google-apps.document" })).toMatchObject({ kind: "EXPORT", extension: "docx" })
    expect(readingOf({ mimeType: "application/vnd.google-apps.spreadsheet" })).toMatchObject({ kind: "EXPORT", mimeType: "text/csv" })
    expect(readingOf({ mimeType: "application/vnd.google-apps.form" })).toEqual({ kind: "SKIP" })
    expect(readingOf({ mimeType: "application/vnd.google-apps.folder" })).toEqual({ kind: "IGNORE" })
    expect(readingOf({ name: "a.pdf", mimeType: "application/pdf" })).toEqual({ kind: "MEDIA" })
    expect(readingOf({ name: "a.xlsx", mimeType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" })).toEqual({ kind: "SKIP" })
  })
})

describe("the Drive client against a hostile Google", () => {
  let server: Server
  let base = ""
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://x")
      if (url.pathname === "/token") {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end(JSON.stringify({ access_token: "t", expires_in: 3600 }))
      }
      if (url.pathname === "/drive/v3/huge") {
        res.writeHead(200, { "content-type": "application/json", "content-length": String(64 * 1024 * 1024) })
        return res.end()
      }
      if (url.pathname === "/drive/v3/malformed") {
        res.writeHead(200, { "content-type": "application/json" })
        return res.end("{\"files\": [")
      }
      if (url.pathname === "/drive/v3/redirect") {
        res.writeHead(302, { location: "http://10.0.0.7/secret" })
        return res.end()
      }
      if (url.pathname === "/admin/directory/v1/users") {
        res.writeHead(200, { "content-type": "application/json" })
        // Another domain's user and a suspended one are not members of acme.com's principal.
        return res.end(JSON.stringify({ users: [{ primaryEmail: "ann@acme.com" }, { primaryEmail: "eve@evil.com" }, { primaryEmail: "sam@acme.com", suspended: true }] }))
      }
      res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const clientOf = (allowed: boolean) => googleDriveClient(key, Settings.make({
    dataDir: "/tmp/unused",
    allowedPrivateHosts: allowed ? [new URL(base).host] : [],
    connectorBaseUrls: { "google-drive": base, "google-admin": base, "google-token": `${base}/token` }
  }))

  it("refuses a huge answer and a malformed one, and a redirect to a private address", async () => {
    const client = clientOf(true)
    await expect(client.json("drive", "a@acme.com", "/drive/v3/huge")).rejects.toMatchObject({ code: "TOO_LARGE" })
    await expect(client.json("drive", "a@acme.com", "/drive/v3/malformed")).rejects.toMatchObject({ code: "SOURCE_ERROR" })
    await expect(client.bytes("a@acme.com", "/drive/v3/redirect", 1024)).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
  })
  it("refuses Google on a private address unless allowed, the token request included", async () => {
    await expect(clientOf(false).json("drive", "a@acme.com", "/drive/v3/about")).rejects.toMatchObject({ code: "ADDRESS_NOT_ALLOWED" })
  })
  it("admits to a domain's principal only the directory's active users of that domain", async () => {
    const membership = await domainMembership(clientOf(true), "a@acme.com", "acme.com")
    expect(membership).toMatchObject({ id: "domain:acme.com", kind: "SOURCE_ORGANIZATION" })
    expect(membership.members.users.map((u) => u.email)).toEqual(["ann@acme.com"])
  })
})
