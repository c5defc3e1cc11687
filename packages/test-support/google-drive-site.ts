import type { admin_directory_v1 } from "@googleapis/admin"
import type { drive_v3 } from "@googleapis/drive"
import { Document, HeadingLevel, Packer, Paragraph } from "docx"
import { generateKeyPairSync, verify } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback Google Workspace for the GOOGLE_DRIVE kind: the OAuth token endpoint (a service account's RS256 JWT
 * assertion with domain-wide delegation, verified against the key's public half: signature, kid, iss, aud, scopes, and
 * a `sub` the directory knows), the Drive API v3 (about, shared drives, files.list, changes with start page tokens,
 * permissions, `alt=media` and `files.export`) and the Admin SDK Directory API (group members, users by domain), all
 * from a model the test edits. Every Drive and Directory answer is typed against @googleapis/drive and
 * @googleapis/admin (`satisfies`), so a wrong guess about Google's shapes fails `tsc -b`. It pages by `nextPageToken`
 * (2 items a page), refuses start page tokens on demand (400), answers one 401 or one 403 `rateLimitExceeded` (Retry-After: 1) before recovering, refuses the
 * key once it is deleted (invalid_grant), and counts what it served (to tell a permission sync, which fetches no
 * content, from a crawl).
 */

export type DrivePermission =
  | { readonly type: "user"; readonly email: string }
  | { readonly type: "group"; readonly email: string }
  | { readonly type: "domain"; readonly domain: string }
  | { readonly type: "anyone" }
export interface WorkspaceFile {
  readonly id: string
  /** A shared drive's id, or the owner's email for a file in their My Drive. */
  readonly driveId?: string | undefined
  readonly owner?: string | undefined
  name: string
  mimeType: string
  content: string
  /** Sequence number of its last change (page tokens are sequence numbers). */
  changed: number
  removed: boolean
  permissions: Array<DrivePermission>
}
export interface WorkspaceModel {
  readonly domain: string
  readonly adminSubject: string
  readonly users: Map<string, { readonly name: string; suspended?: boolean }>
  readonly groups: Map<string, Array<{ readonly type: "USER" | "GROUP"; readonly email: string }>>
  readonly sharedDrives: Map<string, { readonly name: string; permissionsReadable: boolean }>
  readonly files: Map<string, WorkspaceFile>
  seq: number
}

const PAGE = 2
export const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token"
const SCOPES = ["https://www.googleapis.com/auth/drive.readonly", "https://www.googleapis.com/auth/admin.directory.group.readonly", "https://www.googleapis.com/auth/admin.directory.user.readonly"]

/** A service account's key JSON as Google downloads it, with a fresh RSA key made for this run. */
export const makeServiceAccountKey = (clientEmail = "lore-reader@lore-test.iam.gserviceaccount.com") => {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 })
  return {
    key: {
      type: "service_account",
      project_id: "lore-test",
      private_key_id: "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      client_email: clientEmail,
      client_id: "112233445566778899000",
      auth_uri: "https://accounts.google.com/o/oauth2/auth",
      token_uri: GOOGLE_TOKEN_URI,
      auth_provider_x509_cert_url: "https://www.googleapis.com/oauth2/v1/certs",
      client_x509_cert_url: `https://www.googleapis.com/robot/v1/metadata/x509/${encodeURIComponent(clientEmail)}`,
      universe_domain: "googleapis.com"
    },
    publicKey
  }
}

const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
const docxOf = async (title: string, text: string) =>
  Packer.toBuffer(new Document({ sections: [{ children: [new Paragraph({ text: title, heading: HeadingLevel.HEADING_1 }), new Paragraph(text)] }] }))

export const startWorkspace = async (model: WorkspaceModel, account: ReturnType<typeof makeServiceAccountKey>) => {
  const state = {
    revoked: false,
    unauthorizedOnce: false,
    throttleOnce: false,
    /** Start page tokens below this sequence number are refused (400 invalid pageToken), as Drive refuses one it no longer keeps. */
    expiredBelow: 0,
    answeredExpired: 0,
    tokensIssued: 0,
    answered401: 0,
    answered403RateLimit: 0,
    subjectsRefused: 0,
    served: { content: 0, exports: 0, changes: 0, listings: 0, permissions: 0, groupMembers: 0, users: 0 }
  }
  const tokens = new Map<string, string>()
  let base = ""

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json; charset=UTF-8", ...headers })
    res.end(JSON.stringify(body))
  }
  const googleError = (res: ServerResponse, status: number, reason: string, headers: Record<string, string> = {}) =>
    send(res, status, { error: { code: status, message: reason, errors: [{ domain: "global", reason, message: reason }] } }, headers)
  const readBody = (req: IncomingMessage) => new Promise<string>((resolve) => {
    const parts: Array<Buffer> = []
    req.on("data", (part: Buffer) => parts.push(part))
    req.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
  })

  /** Google's token endpoint for a JWT bearer grant, checked as Google checks a delegated service account's. */
  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const form = new URLSearchParams(await readBody(req))
    const refuse = (description: string) => send(res, 400, { error: "invalid_grant", error_description: description })
    if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer") return send(res, 400, { error: "unsupported_grant_type" })
    const [header, payload, signature] = (form.get("assertion") ?? "").split(".")
    if (!header || !payload || !signature) return refuse("Invalid JWT.")
    const head = JSON.parse(Buffer.from(header, "base64url").toString()) as Record<string, string>
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
    const signed = verify("RSA-SHA256", Buffer.from(`${header}.${payload}`), account.publicKey, Buffer.from(signature, "base64url"))
    if (state.revoked || !signed || head.alg !== "RS256" || head.kid !== account.key.private_key_id) return refuse("Invalid JWT Signature.")
    if (claims.iss !== account.key.client_email || claims.aud !== GOOGLE_TOKEN_URI || Number(claims.exp) * 1000 < Date.now()) return refuse("Invalid JWT: Token must be a short-lived token")
    const scopes = String(claims.scope ?? "").split(" ")
    if (!SCOPES.every((scope) => scopes.includes(scope))) return send(res, 401, { error: "unauthorized_client", error_description: "Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested." })
    const subject = String(claims.sub ?? "").toLowerCase()
    if (subject !== model.adminSubject && (!model.users.has(subject) || model.users.get(subject)!.suspended)) {
      state.subjectsRefused++
      return refuse("Invalid email or User ID")
    }
    const accessToken = `ya29.fake-${++state.tokensIssued}-${Math.random().toString(36).slice(2)}`
    tokens.set(accessToken, subject)
    send(res, 200, { access_token: accessToken, expires_in: 3599, token_type: "Bearer" })
  }

  const exported: Record<string, string> = {
    "application/vnd.google-apps.document": DOCX,
    "application/vnd.google-apps.spreadsheet": "text/csv",
    "application/vnd.google-apps.presentation": "text/plain"
  }
  const fileJson = (file: WorkspaceFile, subject: string) => ({
    kind: "drive#file",
    id: file.id,
    name: file.name,
    mimeType: file.mimeType,
    trashed: false,
    ...(file.mimeType.startsWith("application/vnd.google-apps.") ? {} : { size: String(Buffer.byteLength(file.content)) }),
    webViewLink: `https://docs.google.com/document/d/${file.id}/edit`,
    ...(file.driveId ? { driveId: file.driveId } : { ownedByMe: file.owner === subject })
  }) satisfies drive_v3.Schema$File
  const permissionJson = (permission: DrivePermission, index: number, inherited: boolean) => {
    const common = { kind: "drive#permission", id: `perm-${index}`, role: "reader", ...(inherited ? { permissionDetails: [{ permissionType: "member", role: "reader", inherited: true, inheritedFrom: "root" }] } : {}) }
    switch (permission.type) {
      case "user":
        return { ...common, type: "user", emailAddress: permission.email, displayName: model.users.get(permission.email)?.name ?? permission.email, deleted: false } satisfies drive_v3.Schema$Permission
      case "group":
        return { ...common, type: "group", emailAddress: permission.email, displayName: permission.email } satisfies drive_v3.Schema$Permission
      case "domain":
        return { ...common, type: "domain", domain: permission.domain, displayName: permission.domain, allowFileDiscovery: false } satisfies drive_v3.Schema$Permission
      case "anyone":
        return { ...common, type: "anyone", allowFileDiscovery: false } satisfies drive_v3.Schema$Permission
    }
  }
  /** Whether `subject` reads the file through the API: the admin subject holds every shared drive, a user their own files. */
  const visible = (file: WorkspaceFile, subject: string) => (file.driveId ? subject === model.adminSubject : file.owner === subject)

  const paged = <A>(all: ReadonlyArray<A>, url: URL) => {
    const offset = Number(url.searchParams.get("pageToken") ?? 0)
    const value = all.slice(offset, offset + PAGE)
    return { value, next: offset + PAGE < all.length ? String(offset + PAGE) : null }
  }

  const drive = async (res: ServerResponse, url: URL, segments: ReadonlyArray<string>, subject: string) => {
    const [, , , collection, id, leaf] = segments
    if (collection === "about") return send(res, 200, { kind: "drive#about", user: { kind: "drive#user", emailAddress: subject, displayName: model.users.get(subject)?.name ?? subject } } satisfies drive_v3.Schema$About)
    if (collection === "drives" && id === undefined) {
      const all = subject === model.adminSubject ? [...model.sharedDrives].map(([driveId, d]) => ({ kind: "drive#drive", id: driveId, name: d.name }) satisfies drive_v3.Schema$Drive) : []
      const { value, next } = paged(all, url)
      return send(res, 200, { kind: "drive#driveList", drives: value, ...(next ? { nextPageToken: next } : {}) } satisfies drive_v3.Schema$DriveList)
    }
    if (collection === "drives") {
      const found = model.sharedDrives.get(id!)
      if (!found || subject !== model.adminSubject) return googleError(res, 404, "notFound")
      return send(res, 200, { kind: "drive#drive", id: id!, name: found.name } satisfies drive_v3.Schema$Drive)
    }
    if (collection === "changes" && id === "startPageToken") return send(res, 200, { kind: "drive#startPageToken", startPageToken: String(model.seq) } satisfies drive_v3.Schema$StartPageToken)
    const driveId = url.searchParams.get("driveId")
    const inUnit = (file: WorkspaceFile) => (driveId ? file.driveId === driveId && subject === model.adminSubject : !file.driveId && file.owner === subject)
    if (collection === "changes") {
      state.served.changes++
      const [since, offset] = (url.searchParams.get("pageToken") ?? "").split(":").map(Number) as [number, number | undefined]
      if (!Number.isFinite(since)) return googleError(res, 400, "invalid")
      if (since < state.expiredBelow) {
        state.answeredExpired++
        return googleError(res, 400, "invalid")
      }
      const all = [...model.files.values()].filter((file) => file.changed > since && (driveId ? file.driveId === driveId : !file.driveId && (file.owner === subject || file.removed))).sort((a, b) => a.changed - b.changed)
      const start = offset ?? 0
      const slice = all.slice(start, start + PAGE)
      const more = start + PAGE < all.length
      const changes = slice.map((file) => (file.removed
        ? { kind: "drive#change", changeType: "file", type: "file", fileId: file.id, removed: true, time: new Date().toISOString() }
        : { kind: "drive#change", changeType: "file", type: "file", fileId: file.id, removed: false, file: fileJson(file, subject), time: new Date().toISOString(), ...(file.driveId ? { driveId: file.driveId } : {}) }) satisfies drive_v3.Schema$Change)
      return send(res, 200, { kind: "drive#changeList", changes, ...(more ? { nextPageToken: `${since}:${start + PAGE}` } : { newStartPageToken: String(model.seq) }) } satisfies drive_v3.Schema$ChangeList)
    }
    if (collection === "files" && id === undefined) {
      state.served.listings++
      const all = [...model.files.values()].filter((file) => !file.removed && inUnit(file)).map((file) => fileJson(file, subject))
      const folder = { kind: "drive#file", id: "folder-1", name: "Archive", mimeType: "application/vnd.google-apps.folder", trashed: false } satisfies drive_v3.Schema$File
      const { value, next } = paged([folder, ...all], url)
      return send(res, 200, { kind: "drive#fileList", incompleteSearch: false, files: value, ...(next ? { nextPageToken: next } : {}) } satisfies drive_v3.Schema$FileList)
    }
    if (collection === "files") {
      const sharedDrive = model.sharedDrives.get(id!)
      if (sharedDrive && leaf === "permissions") {
        if (!sharedDrive.permissionsReadable) return googleError(res, 403, "insufficientFilePermissions")
        return send(res, 200, { kind: "drive#permissionList", permissions: [] } satisfies drive_v3.Schema$PermissionList)
      }
      const file = model.files.get(id!)
      if (!file || file.removed || !visible(file, subject)) return googleError(res, 404, "notFound")
      if (leaf === "permissions") {
        state.served.permissions++
        if (file.driveId && !model.sharedDrives.get(file.driveId)?.permissionsReadable) return googleError(res, 403, "insufficientFilePermissions")
        const { value, next } = paged(file.permissions.map((p, i) => permissionJson(p, i, Boolean(file.driveId))), url)
        return send(res, 200, { kind: "drive#permissionList", permissions: value, ...(next ? { nextPageToken: next } : {}) } satisfies drive_v3.Schema$PermissionList)
      }
      if (leaf === "export") {
        state.served.exports++
        const wanted = url.searchParams.get("mimeType")
        if (!exported[file.mimeType] || exported[file.mimeType] !== wanted) return googleError(res, 403, "cannotExportFile")
        const bytes = wanted === DOCX ? await docxOf(file.name, file.content) : Buffer.from(file.content)
        res.writeHead(200, { "content-type": wanted!, "content-length": String(bytes.byteLength) })
        return res.end(bytes)
      }
      if (leaf === undefined && url.searchParams.get("alt") === "media") {
        state.served.content++
        if (file.mimeType.startsWith("application/vnd.google-apps.")) return googleError(res, 403, "fileNotDownloadable")
        res.writeHead(200, { "content-type": file.mimeType })
        return res.end(file.content)
      }
    }
    return googleError(res, 400, "badRequest")
  }

  const directory = (res: ServerResponse, url: URL, segments: ReadonlyArray<string>, subject: string) => {
    if (subject !== model.adminSubject) return googleError(res, 403, "forbidden")
    const [, , , , collection, key, leaf] = segments
    if (collection === "groups" && leaf === "members") {
      state.served.groupMembers++
      const members = model.groups.get(key!.toLowerCase())
      if (!members) return googleError(res, 404, "notFound")
      const { value, next } = paged(members.map((m, i) => ({ kind: "admin#directory#member", id: `m${i}`, email: m.email, role: "MEMBER", type: m.type, status: "ACTIVE" }) satisfies admin_directory_v1.Schema$Member), url)
      return send(res, 200, { kind: "admin#directory#members", members: value, ...(next ? { nextPageToken: next } : {}) } satisfies admin_directory_v1.Schema$Members)
    }
    if (collection === "users" && key === undefined) {
      state.served.users++
      const domain = url.searchParams.get("domain")
      if (domain !== model.domain) return googleError(res, 400, "badRequest")
      const all = [...model.users].filter(([email]) => email.endsWith(`@${domain}`)).map(([email, user]) =>
        ({ kind: "admin#directory#user", id: email, primaryEmail: email, name: { fullName: user.name }, suspended: user.suspended ?? false, archived: false }) satisfies admin_directory_v1.Schema$User)
      const { value, next } = paged(all, url)
      return send(res, 200, { kind: "admin#directory#users", users: value, ...(next ? { nextPageToken: next } : {}) } satisfies admin_directory_v1.Schema$Users)
    }
    return googleError(res, 400, "badRequest")
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    if (url.pathname === "/token" && req.method === "POST") return token(req, res)
    const segments = url.pathname.split("/").map((s) => decodeURIComponent(s))
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1]
    const subject = bearer ? tokens.get(bearer) : undefined
    if (!subject || state.revoked) {
      state.answered401++
      return googleError(res, 401, "authError")
    }
    if (state.unauthorizedOnce) {
      state.unauthorizedOnce = false
      tokens.delete(bearer!)
      state.answered401++
      return googleError(res, 401, "authError")
    }
    if (state.throttleOnce) {
      state.throttleOnce = false
      state.answered403RateLimit++
      return googleError(res, 403, "userRateLimitExceeded", { "retry-after": "1" })
    }
    if (segments[1] === "drive" && segments[2] === "v3") return drive(res, url, segments, subject)
    if (segments[1] === "admin" && segments[2] === "directory" && segments[3] === "v1") return directory(res, url, segments, subject)
    return googleError(res, 404, "notFound")
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error) => send(res, 500, { error: { code: 500, message: String(error) } }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
  return {
    state,
    host: `127.0.0.1:${port}`,
    baseUrl: base,
    /** What LORE_CONNECTOR_BASE_URLS names for this workspace. */
    connectorBaseUrls: { "google-drive": base, "google-admin": base, "google-token": `${base}/token` },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
