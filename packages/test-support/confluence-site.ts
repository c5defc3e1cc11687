import type { Models } from "confluence.js"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A loopback server speaking Confluence's REST API v1 (as Cloud serves it under /wiki) from a model the test edits:
 * spaces with their read permissions, users, groups with members, pages and blog posts with ancestors, read
 * restrictions and attachments. Every answer is typed against confluence.js's own models (`satisfies`), so a
 * wrong guess about Confluence's shapes fails `tsc -b`. It pages with `_links.next` (at most 2 items a page),
 * can answer one 401 or one 429 (Retry-After) before recovering, refuses everything once the token is revoked,
 * and counts what it served (to tell a permission sync from a crawl).
 */

export interface SiteUser { readonly accountId: string; readonly email: string; readonly displayName: string }
export interface SitePrincipals { users: Array<string>; groups: Array<string> }
export interface SiteAttachment { readonly id: string; readonly title: string; readonly mediaType: string; readonly bytes: Uint8Array }
export interface SiteContent {
  readonly id: string
  readonly type: "page" | "blogpost"
  title: string
  readonly spaceKey: string
  readonly ancestors: ReadonlyArray<string>
  body: string
  lastModified: Date
  restriction: SitePrincipals | null
  attachments: Array<SiteAttachment>
}
export interface SiteSpace { readonly key: string; readonly name: string; readers: SitePrincipals; permissionsReadable: boolean }

export interface SiteModel {
  readonly users: Map<string, SiteUser>
  readonly groups: Map<string, Set<string>>
  readonly spaces: Map<string, SiteSpace>
  readonly contents: Map<string, SiteContent>
}

const PAGE_LIMIT = 2

const links = (self: string, next?: string) => ({ self, ...(next ? { next } : {}) })

const userOf = (user: SiteUser) => ({
  type: "known",
  accountId: user.accountId,
  accountType: "atlassian",
  email: user.email,
  publicName: user.displayName,
  profilePicture: { path: "/wiki/aa-avatar/default.png", width: 48, height: 48, isDefault: true },
  displayName: user.displayName,
  _expandable: {},
  _links: links(`/rest/api/user?accountId=${user.accountId}`)
}) satisfies Models.User

const groupOf = (name: string) => ({ type: "group", name, id: `gid-${name}`, _links: links(`/rest/api/group/${name}`) }) satisfies Models.Group

/** `pageLimit`: items a page at most (default 2, so tests page; benches serve Confluence's own sizes). */
export const startConfluenceSite = async (model: SiteModel, auth: { readonly email: string; readonly apiToken: string }, options: { readonly pageLimit?: number } = {}) => {
  const pageLimit = options.pageLimit ?? PAGE_LIMIT
  const expected = `Basic ${Buffer.from(`${auth.email}:${auth.apiToken}`).toString("base64")}`
  const state = { revoked: false, unauthorizedOnce: false, throttleOnce: false, served: { content: 0, search: 0, attachments: 0, downloads: 0, restrictions: 0, groups: 0, spaces: 0 }, answered401: 0, answered429: 0 }

  const spaceJson = (space: SiteSpace, withPermissions: boolean) => {
    const permission = (subjects: Models.SpacePermission["subjects"]) => ({
      subjects,
      operation: { operation: "read", targetType: "space" },
      anonymousAccess: false,
      unlicensedAccess: false
    }) satisfies Models.SpacePermission
    const permissions = [
      ...space.readers.users.map((id) => permission({ user: { results: [userOf(model.users.get(id)!)], size: 1 }, _expandable: {} })),
      ...space.readers.groups.map((name) => permission({ group: { results: [groupOf(name)], size: 1 }, _expandable: {} })),
      // Other operations name other principals: only `read` on the space decides who views it.
      permission({ user: { results: [userOf({ accountId: "acc-admin-only", email: "admin-only@example.com", displayName: "Admin only" })], size: 1 }, _expandable: {} })
    ].map((p, i, all) => (i === all.length - 1 ? { ...p, operation: { operation: "administer", targetType: "space" } } : p))
    return {
      id: Math.abs([...space.key].reduce((h, c) => h * 31 + c.charCodeAt(0), 7)) % 1_000_000,
      key: space.key,
      name: space.name,
      type: "global",
      status: "current",
      ...(withPermissions && space.permissionsReadable ? { permissions } : {}),
      _expandable: withPermissions ? {} : { permissions: "" },
      _links: links(`/rest/api/space/${space.key}`)
    } satisfies Models.Space
  }

  const contentJson = (content: SiteContent, expand: ReadonlySet<string>) => ({
    id: content.id,
    type: content.type,
    status: "current",
    title: content.title,
    ...(expand.has("space") ? { space: spaceJson(model.spaces.get(content.spaceKey)!, false) } : {}),
    ...(expand.has("ancestors") ? { ancestors: content.ancestors.map((id) => ({ id, type: "page", status: "current", title: model.contents.get(id)?.title ?? id, _expandable: {} })) } : {}),
    ...(expand.has("body.storage") ? { body: { storage: { value: content.body, representation: "storage", _expandable: {} }, _expandable: {} } } : {}),
    _expandable: {},
    _links: { self: `/rest/api/content/${content.id}`, webui: `/spaces/${content.spaceKey}/pages/${content.id}` }
  }) satisfies Models.Content

  const page = <T>(all: ReadonlyArray<T>, url: URL) => {
    const start = Number(url.searchParams.get("start") ?? 0)
    const limit = Math.min(pageLimit, Number(url.searchParams.get("limit") ?? pageLimit))
    const results = all.slice(start, start + limit)
    let next: string | undefined
    if (start + limit < all.length) {
      const following = new URL(url)
      following.searchParams.set("start", String(start + limit))
      // Confluence's links are relative to the site's context path (_links.base ends in /wiki).
      next = following.pathname.replace(/^\/wiki/, "") + following.search
    }
    return { results, start, limit, size: results.length, next }
  }

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers })
    res.end(JSON.stringify(body))
  }

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://site")
    if (state.revoked || req.headers.authorization !== expected) {
      state.answered401++
      return send(res, 401, { statusCode: 401, message: "Unauthorized" })
    }
    if (state.unauthorizedOnce) {
      state.unauthorizedOnce = false
      state.answered401++
      return send(res, 401, { statusCode: 401, message: "Unauthorized" })
    }
    if (state.throttleOnce) {
      state.throttleOnce = false
      state.answered429++
      return send(res, 429, { statusCode: 429, message: "Rate limited" }, { "retry-after": "1" })
    }
    const path = url.pathname.replace(/^\/wiki/, "")
    const expand = new Set((url.searchParams.get("expand") ?? "").split(","))
    let match: RegExpExecArray | null
    if (path === "/rest/api/user/current") return send(res, 200, userOf({ accountId: "acc-bot", email: auth.email, displayName: "Lore bot" }))
    if ((match = /^\/rest\/api\/space\/([^/]+)$/.exec(path))) {
      state.served.spaces++
      const space = model.spaces.get(decodeURIComponent(match[1]!))
      return space ? send(res, 200, spaceJson(space, expand.has("permissions"))) : send(res, 404, { statusCode: 404, message: "No space" })
    }
    if (path === "/rest/api/content/search") {
      state.served.search++
      const cql = url.searchParams.get("cql") ?? ""
      const spaceKey = /space="([^"]+)"/.exec(cql)?.[1]
      const since = /lastmodified >= "(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2})"/.exec(cql)
      const sinceTime = since ? Date.UTC(+since[1]!, +since[2]! - 1, +since[3]!, +since[4]!, +since[5]!) : -Infinity
      const all = [...model.contents.values()]
        .filter((c) => c.spaceKey === spaceKey && c.lastModified.getTime() >= sinceTime)
        .sort((a, b) => a.lastModified.getTime() - b.lastModified.getTime() || a.id.localeCompare(b.id))
      const { next, ...rest } = page(all, url)
      state.served.content += rest.results.length
      return send(res, 200, { ...rest, results: rest.results.map((c) => contentJson(c, expand)), _links: links(path, next) } satisfies Models.ContentArray)
    }
    if ((match = /^\/rest\/api\/content\/(\d+)\/restriction\/byOperation\/read$/.exec(path))) {
      state.served.restrictions++
      const content = model.contents.get(match[1]!)
      if (!content) return send(res, 404, { statusCode: 404, message: "No content" })
      const users = (content.restriction?.users ?? []).map((id) => userOf(model.users.get(id)!))
      const groups = (content.restriction?.groups ?? []).map(groupOf)
      return send(res, 200, {
        operation: "read",
        restrictions: { user: { results: users, start: 0, limit: 200, size: users.length }, group: { results: groups, start: 0, limit: 200, size: groups.length } },
        _expandable: {},
        _links: links(`/rest/api/content/${content.id}/restriction/byOperation/read`)
      } satisfies Models.ContentRestriction)
    }
    if ((match = /^\/rest\/api\/content\/(\d+)\/child\/attachment$/.exec(path))) {
      state.served.attachments++
      const content = model.contents.get(match[1]!)
      if (!content) return send(res, 404, { statusCode: 404, message: "No content" })
      const { next, ...rest } = page(content.attachments, url)
      return send(res, 200, {
        ...rest,
        results: rest.results.map((a) => ({
          id: a.id,
          type: "attachment",
          status: "current",
          title: a.title,
          extensions: { mediaType: a.mediaType, fileSize: a.bytes.byteLength },
          _expandable: {},
          _links: { self: `/rest/api/content/${a.id}`, download: `/download/attachments/${content.id}/${encodeURIComponent(a.title)}?version=1&api=v2` }
        } satisfies Models.Content & { extensions: { mediaType: string; fileSize: number } })),
        _links: links(path, next)
      } satisfies Models.ContentArray)
    }
    if ((match = /^\/download\/attachments\/(\d+)\/([^/]+)$/.exec(path))) {
      state.served.downloads++
      const attachment = model.contents.get(match[1]!)?.attachments.find((a) => a.title === decodeURIComponent(match![2]!))
      if (!attachment) return send(res, 404, { statusCode: 404, message: "No attachment" })
      res.writeHead(200, { "content-type": attachment.mediaType, "content-length": String(attachment.bytes.byteLength) })
      return res.end(attachment.bytes)
    }
    if ((match = /^\/rest\/api\/content\/(\d+)$/.exec(path))) {
      const content = model.contents.get(match[1]!)
      return content ? send(res, 200, contentJson(content, expand)) : send(res, 404, { statusCode: 404, message: "No content" })
    }
    if (path === "/rest/api/group") {
      state.served.groups++
      const { next, ...rest } = page([...model.groups.keys()].sort().map(groupOf), url)
      return send(res, 200, { ...rest, _links: links(path, next) } satisfies Models.GroupArrayWithLinks)
    }
    if ((match = /^\/rest\/api\/group\/([^/]+)\/member$/.exec(path))) {
      const members = model.groups.get(decodeURIComponent(match[1]!))
      if (!members) return send(res, 404, { statusCode: 404, message: "No group" })
      const all = [...members].sort().map((id) => userOf(model.users.get(id)!))
      const start = Number(url.searchParams.get("start") ?? 0)
      const limit = Number(url.searchParams.get("limit") ?? 200)
      const results = all.slice(start, start + limit)
      return send(res, 200, { results, start, limit, size: results.length } satisfies Models.UserArray)
    }
    return send(res, 404, { statusCode: 404, message: `No route ${path}` })
  }

  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    host: `127.0.0.1:${port}`,
    baseUrl: `http://127.0.0.1:${port}/wiki`,
    state,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}
