import type { Drive, DriveItem, List, Permission, Site, SitePage, StandardWebPart, TextWebPart, User } from "@microsoft/microsoft-graph-types"
import { constants, createHash, verify, X509Certificate } from "node:crypto"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PDFDocument, StandardFonts } from "pdf-lib"

/**
 * A member of a SharePoint site group as SharePoint REST answers `/_api/web/sitegroups/getbyid(n)/users` with
 * `odata=nometadata` (the Graph types package does not describe SharePoint REST). The server's test support checks
 * at compile time that Lore's own reading of it (connectors/sharepoint/Groups.ts) accepts this shape.
 */
export interface SiteGroupMember {
  readonly Id: number
  readonly LoginName: string
  readonly Title: string
  readonly Email?: string | null
  /** 1 user, 4 security group (an Entra group), 8 SharePoint group. */
  readonly PrincipalType: number
}

/**
 * A loopback Microsoft tenant for the SHAREPOINT kind: Entra's token endpoint (client credentials with a certificate
 * client assertion, verified against the app's certificate: PS256 signature, x5t#S256, audience, issuer), Microsoft
 * Graph v1.0 (users, groups' transitive members, sites, their lists (a Site Pages library among them), drives, delta
 * queries, driveItem permissions and content, modern pages with their canvas) and SharePoint REST site groups, on the
 * SharePoint host and on a second listener playing the personal-sites (-my) host, each taking only tokens issued for
 * itself, all from a model the test edits. Every Graph answer is typed against
 * @microsoft/microsoft-graph-types (`satisfies`), so a wrong guess about Graph's shapes fails `tsc -b`. It pages by
 * `@odata.nextLink` (2 items a page), keeps delta tokens (expiring them on demand: 410 resyncRequired), can answer
 * one 401 or one 429 (Retry-After) before recovering, refuses the app once its certificate is revoked, and counts
 * what it served (to tell a permission sync, which fetches no content, from a crawl).
 */

export interface TenantUser { readonly id: string; readonly mail: string; readonly displayName: string; readonly userType: "Member" | "Guest" }
export type SitePermission =
  | { readonly id: string; readonly kind: "user"; readonly userId: string; readonly inherited?: boolean }
  | { readonly id: string; readonly kind: "group"; readonly groupId: string; readonly inherited?: boolean }
  | { readonly id: string; readonly kind: "siteGroup"; readonly siteGroupId: number; readonly inherited?: boolean }
  | { readonly id: string; readonly kind: "link"; readonly scope: "organization" | "anonymous" | "users"; readonly userIds: ReadonlyArray<string> }
export interface TenantItem {
  readonly id: string
  readonly driveId: string
  name: string
  content: string
  /** Sequence number of its last change (delta tokens are sequence numbers). */
  changed: number
  deleted: boolean
  permissions: Array<SitePermission>
  /** In a Site Pages library: the modern page this .aspx is (its id is the list item's unique id), text and a banner web part. */
  page?: { readonly id: string; title: string; html: string; banner: string }
}
export type SiteGroupEntry = { readonly type: "user"; readonly email: string } | { readonly type: "entraGroup"; readonly groupId: string } | { readonly type: "everyone" }
export interface TenantSite {
  readonly id: string
  readonly name: string
  readonly path: string
  readonly drives: ReadonlyArray<string>
  readonly siteGroups: Map<number, { readonly title: string; readonly members: Array<SiteGroupEntry> }>
  /** Its Site Pages library (a webPageLibrary list, not among `drives`: Graph's /drives lists document libraries). */
  readonly pagesDrive?: string
  /** A OneDrive's personal site: on the personal-sites (-my) host, left out of site search. */
  readonly personal?: boolean
}
export interface TenantDrive { readonly id: string; readonly name: string; readonly siteId: string | null; readonly ownerEmail: string | null; permissionsReadable: boolean }
export interface TenantModel {
  readonly tenantId: string
  readonly clientId: string
  readonly users: Map<string, TenantUser>
  readonly groups: Map<string, Set<string>>
  readonly sites: Map<string, TenantSite>
  readonly drives: Map<string, TenantDrive>
  readonly items: Map<string, TenantItem>
  seq: number
}

const DEFAULT_PAGE = 2

/** A self-signed RSA certificate and its key, made by openssl for this run (the app's credential). */
export const makeCertificate = () => {
  const dir = mkdtempSync(join(tmpdir(), "lore-sp-cert-"))
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "2", "-subj", "/CN=lore-connector-test"], { stdio: "ignore" })
    return { certificatePem: readFileSync(join(dir, "cert.pem"), "utf8"), privateKeyPem: readFileSync(join(dir, "key.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const pdfWith = async (text: string) => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  doc.addPage([600, 400]).drawText(text, { x: 40, y: 300, size: 14, font })
  return doc.save()
}

const b64url = (buffer: Buffer) => buffer.toString("base64url")

/** `pageSize`: items a Graph page at most (default 2, so tests page; benches serve Graph's own sizes). */
export const startTenant = async (model: TenantModel, certificatePem: string, options: { readonly pageSize?: number } = {}) => {
  const PAGE = options.pageSize ?? DEFAULT_PAGE
  const certificate = new X509Certificate(certificatePem)
  const state = {
    revoked: false,
    unauthorizedOnce: false,
    throttleOnce: false,
    /** Delta tokens below this sequence number are expired (410 resyncRequired). */
    expiredBelow: 0,
    tokensIssued: 0,
    answered401: 0,
    answered429: 0,
    answered410: 0,
    served: { content: 0, delta: 0, permissions: 0, groupMembers: 0, siteGroups: 0, users: 0, pages: 0, mySiteGroups: 0 }
  }
  const tokens = new Map<string, { readonly resource: string }>()
  let base = ""
  /** The personal-sites host (acme-my.sharepoint.com): a second listener of the same tenant. */
  let myBase = ""
  let myPort = 0

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }
  const graphError = (res: ServerResponse, status: number, code: string) => send(res, status, { error: { code, message: code } })
  const readBody = (req: IncomingMessage) => new Promise<string>((resolve) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
  })

  /** The Entra token endpoint: client credentials with a certificate assertion, checked as Entra checks it. */
  const token = async (req: IncomingMessage, res: ServerResponse, tenant: string) => {
    const form = new URLSearchParams(await readBody(req))
    const refuse = (error: string) => send(res, 401, { error, error_description: `AADSTS7000215: ${error}`, error_codes: [7000215] })
    if (tenant !== model.tenantId || form.get("grant_type") !== "client_credentials" || form.get("client_id") !== model.clientId) return refuse("invalid_request")
    if (form.get("client_assertion_type") !== "urn:ietf:params:oauth:client-assertion-type:jwt-bearer") return refuse("invalid_client")
    const [header, payload, signature] = (form.get("client_assertion") ?? "").split(".")
    if (!header || !payload || !signature) return refuse("invalid_client")
    const head = JSON.parse(Buffer.from(header, "base64url").toString()) as Record<string, string>
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
    const signed = verify("sha256", Buffer.from(`${header}.${payload}`), { key: certificate.publicKey, padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_AUTO }, Buffer.from(signature, "base64url"))
    const thumbprint = b64url(createHash("sha256").update(certificate.raw).digest())
    if (state.revoked || !signed || head.alg !== "PS256" || head["x5t#S256"] !== thumbprint) return refuse("invalid_client")
    if (claims.aud !== `https://login.microsoftonline.com/${model.tenantId}/oauth2/v2.0/token` || claims.iss !== model.clientId || claims.sub !== model.clientId || Number(claims.exp) * 1000 < Date.now()) return refuse("invalid_client")
    const scope = form.get("scope") ?? ""
    const resource = scope.split(" ").find((s) => s.endsWith("/.default"))?.replace(/\/\.default$/, "") ?? ""
    const accessToken = `tok-${++state.tokensIssued}-${Math.random().toString(36).slice(2)}`
    tokens.set(accessToken, { resource })
    send(res, 200, { token_type: "Bearer", expires_in: 3599, ext_expires_in: 3599, access_token: accessToken })
  }

  const userJson = (user: TenantUser) => ({
    id: user.id,
    mail: user.mail,
    displayName: user.displayName,
    userType: user.userType,
    userPrincipalName: user.userType === "Guest" ? `${user.mail.replace("@", "_")}#EXT#@tenant.onmicrosoft.com` : user.mail
  }) satisfies User
  const siteJson = (site: TenantSite) => ({
    id: site.id,
    name: site.path.split("/").at(-1)!,
    displayName: site.name,
    webUrl: `${site.personal ? myBase : base}${site.path}`
  }) satisfies Site
  const driveJson = (drive: TenantDrive) => ({
    id: drive.id,
    name: drive.name,
    driveType: drive.siteId ? "documentLibrary" : "business",
    webUrl: `${base}/drives/${drive.id}`,
    ...(drive.ownerEmail ? { owner: { user: { id: [...model.users.values()].find((u) => u.mail === drive.ownerEmail)?.id ?? null, displayName: drive.ownerEmail } } } : {})
  }) satisfies Drive
  const identityOf = (userId: string) => {
    const user = model.users.get(userId)!
    return { id: user.id, displayName: user.displayName, email: user.mail } as { id: string; displayName: string }
  }
  const permissionJson = (item: TenantItem, permission: SitePermission) => {
    const inheritedFrom = "inherited" in permission && permission.inherited ? { inheritedFrom: { driveId: item.driveId, id: `root-${item.driveId}`, path: "/drive/root:" } } : {}
    switch (permission.kind) {
      case "user":
        return { id: permission.id, roles: ["read"], grantedToV2: { user: identityOf(permission.userId) }, ...inheritedFrom } satisfies Permission
      case "group":
        return { id: permission.id, roles: ["read"], grantedToV2: { group: { id: permission.groupId, displayName: permission.groupId } }, ...inheritedFrom } satisfies Permission
      case "siteGroup": {
        const site = [...model.sites.values()].find((s) => s.drives.includes(item.driveId) || s.pagesDrive === item.driveId)!
        const title = site.siteGroups.get(permission.siteGroupId)?.title ?? "Group"
        return { id: permission.id, roles: ["read"], grantedToV2: { siteGroup: { id: String(permission.siteGroupId), displayName: title, loginName: title } }, ...inheritedFrom } satisfies Permission
      }
      case "link":
        return {
          id: permission.id,
          roles: ["read"],
          link: { scope: permission.scope, type: "view", webUrl: `${base}/:w:/s/x/${permission.id}`, preventsDownload: false },
          grantedToIdentitiesV2: permission.userIds.map((id) => ({ user: identityOf(id) })),
          hasPassword: false
        } satisfies Permission
    }
  }
  const itemJson = (item: TenantItem) =>
    item.deleted
      ? ({ id: item.id, deleted: { state: "deleted" }, parentReference: { driveId: item.driveId } }) satisfies DriveItem
      : ({
        id: item.id,
        name: item.name,
        size: Buffer.byteLength(item.content),
        webUrl: `https://contoso.sharepoint.com/Shared%20Documents/${encodeURIComponent(item.name)}`,
        lastModifiedDateTime: new Date().toISOString(),
        file: { mimeType: /\.txt$/.test(item.name) ? "text/plain" : /\.md$/.test(item.name) ? "text/markdown" : /\.pptx$/.test(item.name) ? "application/vnd.openxmlformats-officedocument.presentationml.presentation" : "video/mp4" },
        parentReference: { driveId: item.driveId, path: "/drive/root:" },
        ...(item.page ? { sharepointIds: { listItemUniqueId: item.page.id } } : {})
      }) satisfies DriveItem

  const page = <A>(res: ServerResponse, all: ReadonlyArray<A>, url: URL, extra: (last: boolean) => Record<string, string> = () => ({})) => {
    const skip = Number(url.searchParams.get("skip") ?? 0)
    const value = all.slice(skip, skip + PAGE)
    const last = skip + PAGE >= all.length
    const next = new URL(url.href)
    next.searchParams.set("skip", String(skip + PAGE))
    send(res, 200, { value, ...(last ? extra(true) : { "@odata.nextLink": next.href }) })
  }

  const graph = async (req: IncomingMessage, res: ServerResponse, url: URL, segments: ReadonlyArray<string>) => {
    const [, , collection, id, sub, subId, leaf] = segments
    if (collection === "users" && id === undefined) {
      state.served.users++
      return page(res, [...model.users.values()].map(userJson), url)
    }
    if (collection === "users" && sub === "drive") {
      const drive = [...model.drives.values()].find((d) => d.ownerEmail === id!.toLowerCase())
      return drive ? send(res, 200, driveJson(drive)) : graphError(res, 404, "itemNotFound")
    }
    if (collection === "groups" && sub === "transitiveMembers") {
      state.served.groupMembers++
      const members = model.groups.get(id!)
      if (!members) return graphError(res, 404, "Request_ResourceNotFound")
      return page(res, [...members].map((m) => ({ "@odata.type": "#microsoft.graph.user", ...userJson(model.users.get(m)!) })), url)
    }
    if (collection === "sites" && id === undefined) return page(res, [...model.sites.values()].filter((s) => !s.personal).map(siteJson), url)
    if (collection === "sites") {
      // By URL: /sites/{hostname}:/{server-relative path}
      const byPath = /^\/v1\.0\/sites\/[^/:]+:(\/[^:]+?)\/?$/.exec(url.pathname)
      const site = byPath ? [...model.sites.values()].find((s) => s.path === byPath[1]) : model.sites.get(id!)
      if (!site) return graphError(res, 404, "itemNotFound")
      if (sub === "drives") return page(res, site.drives.map((d) => driveJson(model.drives.get(d)!)), url)
      if (sub === "lists" && subId === undefined) {
        const lists = [
          ...site.drives.map((d) => ({ id: `list-${d}`, name: model.drives.get(d)!.name, displayName: model.drives.get(d)!.name, list: { template: "documentLibrary", hidden: false } }) satisfies List),
          ...(site.pagesDrive ? [{ id: `list-${site.pagesDrive}`, name: "SitePages", displayName: "Site Pages", list: { template: "webPageLibrary", hidden: false } } satisfies List] : []),
          { id: "list-events", name: "Events", displayName: "Events", list: { template: "events", hidden: false } } satisfies List
        ]
        return page(res, lists, url)
      }
      if (sub === "lists" && leaf === "drive") {
        const drive = model.drives.get(subId!.replace(/^list-/, ""))
        return drive && (site.drives.includes(drive.id) || site.pagesDrive === drive.id) ? send(res, 200, driveJson(drive)) : graphError(res, 404, "itemNotFound")
      }
      if (sub === "pages" && leaf === "microsoft.graph.sitePage") {
        state.served.pages++
        const item = [...model.items.values()].find((i) => i.page?.id === subId && i.driveId === site.pagesDrive && !i.deleted)
        if (!item?.page) return graphError(res, 404, "itemNotFound")
        const text = { id: "wp-text", innerHtml: item.page.html } satisfies TextWebPart
        const banner = {
          id: "wp-banner",
          webPartType: "cbe7b0a9-3504-44dd-a3a3-0e5cacd07788",
          data: { title: "Banner", description: null, serverProcessedContent: { searchablePlainTexts: [{ key: "title", value: item.page.banner }] } }
        } satisfies StandardWebPart
        const withCanvas = url.searchParams.get("$expand") === "canvasLayout"
        return send(res, 200, {
          id: item.page.id,
          name: item.name,
          title: item.page.title,
          webUrl: `https://contoso.sharepoint.com${site.path}/SitePages/${encodeURIComponent(item.name)}`,
          pageLayout: "article",
          ...(withCanvas ? { canvasLayout: { horizontalSections: [{ id: "1", layout: "twoColumns", columns: [{ id: "1", width: 8, webparts: [text] }, { id: "2", width: 4, webparts: [banner] }] }] } } : {})
        } satisfies SitePage)
      }
      return send(res, 200, siteJson(site))
    }
    if (collection === "drives") {
      const drive = model.drives.get(id!)
      if (!drive) return graphError(res, 404, "itemNotFound")
      if (sub === "root" && subId === undefined) {
        return send(res, 200, { id: `root-${drive.id}`, name: "root", root: {}, folder: { childCount: 1 }, parentReference: { driveId: drive.id, ...(drive.siteId ? { siteId: drive.siteId } : {}) } } satisfies DriveItem)
      }
      if (sub === "root" && subId === "permissions") return drive.permissionsReadable ? page(res, [] as Array<Permission>, url) : graphError(res, 403, "accessDenied")
      if (sub === "root" && subId === "delta") {
        state.served.delta++
        const tokenParam = url.searchParams.get("token")
        const since = tokenParam === null ? null : Number(tokenParam)
        if (since !== null && since < state.expiredBelow) {
          state.answered410++
          return graphError(res, 410, "resyncRequired")
        }
        const items = [...model.items.values()]
          .filter((item) => item.driveId === drive.id && (since === null ? !item.deleted : item.changed > since))
          .sort((a, b) => a.changed - b.changed)
        const folder = { id: `folder-${drive.id}`, name: "Archive", folder: { childCount: 0 }, parentReference: { driveId: drive.id } } satisfies DriveItem
        const all: Array<DriveItem> = [...(since === null ? [folder] : []), ...items.map(itemJson)]
        const deltaLink = new URL(`${base}/v1.0/drives/${encodeURIComponent(drive.id)}/root/delta`)
        deltaLink.searchParams.set("token", String(model.seq))
        return page(res, all, url, () => ({ "@odata.deltaLink": deltaLink.href }))
      }
      if (sub === "items") {
        const item = model.items.get(subId!)
        if (!item || item.deleted || item.driveId !== drive.id) return graphError(res, 404, "itemNotFound")
        if (leaf === "permissions") {
          state.served.permissions++
          if (!drive.permissionsReadable) return graphError(res, 403, "accessDenied")
          return page(res, item.permissions.map((p) => permissionJson(item, p)), url)
        }
        if (leaf === "content") {
          state.served.content++
          // Graph answers /content with a redirect to a pre-authenticated download URL.
          res.writeHead(302, { location: `${base}/download/${encodeURIComponent(item.id)}${url.searchParams.get("format") === "pdf" ? "?format=pdf" : ""}` })
          return res.end()
        }
      }
    }
    return graphError(res, 400, "BadRequest")
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    const segments = url.pathname.split("/").map((s) => decodeURIComponent(s))
    const tokenMatch = /^\/([^/]+)\/oauth2\/v2\.0\/token$/.exec(url.pathname)
    if (tokenMatch && req.method === "POST") return token(req, res, decodeURIComponent(tokenMatch[1]!))
    if (segments[1] === "download") {
      const item = model.items.get(segments[2]!)
      if (!item || item.deleted) return graphError(res, 404, "itemNotFound")
      if (url.searchParams.get("format") === "pdf") {
        const bytes = await pdfWith(item.content)
        res.writeHead(200, { "content-type": "application/pdf", "content-length": String(bytes.byteLength) })
        return res.end(Buffer.from(bytes))
      }
      res.writeHead(200, { "content-type": "application/octet-stream" })
      return res.end(item.content)
    }
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    const issued = bearer ? tokens.get(bearer) : undefined
    const isGraph = segments[1] === "v1.0"
    const onPersonalHost = req.socket.localPort === myPort
    // Each SharePoint host takes only a token issued for itself (its own resource), Graph only Graph's.
    if (!issued || state.revoked || issued.resource !== (isGraph ? "https://graph.microsoft.com" : onPersonalHost ? myBase : base)) {
      state.answered401++
      return graphError(res, 401, "InvalidAuthenticationToken")
    }
    if (state.unauthorizedOnce) {
      // The token is revoked early: the client must ask Entra for a new one.
      state.unauthorizedOnce = false
      tokens.delete(bearer!)
      state.answered401++
      return graphError(res, 401, "InvalidAuthenticationToken")
    }
    if (state.throttleOnce) {
      state.throttleOnce = false
      state.answered429++
      return send(res, 429, { error: { code: "TooManyRequests", message: "throttled" } }, { "retry-after": "1" })
    }
    if (isGraph) return graph(req, res, url, segments)
    // SharePoint REST: /sites/{name}/_api/web/sitegroups/getbyid(n)/users (personal sites: /personal/{name}/..., on the -my host)
    const rest = /^(\/(?:sites|personal)\/[^/]+)\/_api\/web\/sitegroups\/getbyid\((\d+)\)\/users$/.exec(url.pathname)
    if (rest && req.headers.accept?.includes("odata=nometadata")) {
      if (onPersonalHost) state.served.mySiteGroups++
      else state.served.siteGroups++
      const site = [...model.sites.values()].find((s) => s.path === rest[1] && Boolean(s.personal) === onPersonalHost)
      const group = site?.siteGroups.get(Number(rest[2]))
      if (!group) return send(res, 404, { "odata.error": { code: "-2146232832, Microsoft.SharePoint.SPException", message: { lang: "en-US", value: "Group cannot be found." } } })
      const value: Array<SiteGroupMember> = group.members.map((member, i) =>
        member.type === "user"
          ? { Id: 10 + i, LoginName: `i:0#.f|membership|${member.email}`, Title: member.email, Email: member.email, PrincipalType: 1 }
          : member.type === "entraGroup"
            ? { Id: 10 + i, LoginName: `c:0t.c|tenant|${member.groupId}`, Title: member.groupId, Email: null, PrincipalType: 4 }
            : { Id: 10 + i, LoginName: `c:0-.f|rolemanager|spo-grid-all-users/${model.tenantId}`, Title: "Everyone except external users", Email: null, PrincipalType: 4 })
      return send(res, 200, { value })
    }
    return graphError(res, 404, "NotFound")
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((error) => send(res, 500, { error: { code: "generalException", message: String(error) } }))
  }
  const server = createServer(listener)
  const myServer = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  await new Promise<void>((resolve) => myServer.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  myPort = (myServer.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
  myBase = `http://127.0.0.1:${myPort}`
  return {
    state,
    host: `127.0.0.1:${port}`,
    baseUrl: base,
    /** The personal-sites host, as LORE_CONNECTOR_BASE_URLS `sharepoint-my` names it (allow it as a private host too). */
    personalHost: `127.0.0.1:${myPort}`,
    personalBaseUrl: myBase,
    close: () => Promise.all([server, myServer].map((s) => new Promise<void>((resolve) => s.close(() => resolve())))).then(() => undefined)
  }
}
