import { createHash } from "node:crypto"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A small web site for the WEB connector tests, served by node:http on 127.0.0.1: pages set and changed by the
 * test, robots.txt, sitemaps, ETag and Last-Modified answered with 304 to conditional GETs, an Authorization
 * header it may require, optional slowness and a stall switch; it counts what it served, per path and status.
 */
export interface SitePage {
  readonly body: string | Uint8Array
  readonly type?: string
  /** Validators the page carries: "etag" (the default), "last-modified", both, or none. */
  readonly validators?: "etag" | "last-modified" | "both" | "none"
}

export interface Site {
  readonly url: string
  readonly pages: Map<string, SitePage>
  /** Every request: path, status answered, and the Authorization header it carried. */
  readonly log: Array<{ path: string; status: number; authorization: string | undefined; conditional: boolean; at: number }>
  /** When set, every request must carry exactly this Authorization header (else 401). */
  requiredAuthorization: string | null
  /** Milliseconds each answer waits. */
  delayMs: number
  /** While true, requests are held (not answered) until it turns false. */
  stalled: boolean
  /** While true, every request is answered 503 (the site is down). */
  down: boolean
  /** Turns `stalled` on by itself when the `count`-th request under `prefix` arrives (a crash at a known point). */
  stallAt: { prefix: string; count: number } | null
  served: (path: string, status?: number) => number
  close: () => Promise<void>
}

const LAST_MODIFIED = new Date("2026-01-05T10:00:00Z")

export const startSite = async (): Promise<Site> => {
  const pages = new Map<string, SitePage>()
  const log: Site["log"] = []
  const site = {
    pages, log, requiredAuthorization: null as string | null, delayMs: 0, stalled: false, down: false, stallAt: null as { prefix: string; count: number } | null,
    served: (path: string, status?: number) => log.filter((entry) => entry.path === path && (status === undefined || entry.status === status)).length
  }
  const arrivals: Record<string, number> = new Proxy({}, { get: (target: Record<string, number>, key: string) => target[key] ?? 0 })
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? "/", "http://site").pathname
    const authorization = request.headers.authorization
    const conditional = request.headers["if-none-match"] !== undefined || request.headers["if-modified-since"] !== undefined
    const at = Date.now()
    if (site.stallAt && path.startsWith(site.stallAt.prefix) && ++arrivals[site.stallAt.prefix] >= site.stallAt.count) {
      site.stalled = true
      site.stallAt = null
    }
    if (site.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, site.delayMs))
    while (site.stalled) await new Promise((resolve) => setTimeout(resolve, 50))
    const send = (status: number, headers: Record<string, string> = {}, body: string | Uint8Array = "") => {
      log.push({ path, status, authorization, conditional, at })
      response.writeHead(status, headers)
      response.end(body)
    }
    if (site.down) return send(503, { "retry-after": "60" }, "down for maintenance")
    if (site.requiredAuthorization !== null && authorization !== site.requiredAuthorization) return send(401, { "www-authenticate": "Bearer" }, "unauthorized")
    const redirect = path === "/docs/moved.html" ? "/docs/a.html" : path === "/docs/away.html" ? "/blog/outside.html" : null
    if (redirect) return send(301, { location: redirect })
    const page = pages.get(path)
    if (!page) return send(404, { "content-type": "text/plain" }, "not found")
    const bytes = typeof page.body === "string" ? Buffer.from(page.body) : Buffer.from(page.body)
    const validators = page.validators ?? "etag"
    const etag = `"${createHash("sha1").update(bytes).digest("hex")}"`
    const headers: Record<string, string> = { "content-type": page.type ?? "text/html; charset=utf-8" }
    if (validators === "etag" || validators === "both") headers.etag = etag
    if (validators === "last-modified" || validators === "both") headers["last-modified"] = LAST_MODIFIED.toUTCString()
    const ifNoneMatch = request.headers["if-none-match"]
    const ifModifiedSince = request.headers["if-modified-since"]
    if (headers.etag && ifNoneMatch !== undefined) {
      if (ifNoneMatch === etag) return send(304, { etag })
    } else if (headers["last-modified"] && ifModifiedSince !== undefined && new Date(ifModifiedSince) >= LAST_MODIFIED) {
      // A Last-Modified-only page changes its date when its body changes (the test bumps it via a new page).
      return send(304, { "last-modified": headers["last-modified"] })
    }
    send(200, headers, bytes)
  }
  const server: Server = createServer((request, response) => {
    answer(request, response).catch(() => response.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(site, {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  })
}

/** A page with site chrome (navigation, header, footer, aside) around its main content. */
export const pageWithChrome = (title: string, main: string, links: ReadonlyArray<string> = [], wrapper: "main" | "article" | "body" = "main") => {
  const nav = `<nav><a href="/docs/">Home</a> zqnavword menu ${links.map((href) => `<a href="${href}">${href}</a>`).join(" ")}</nav>`
  const content = `<h1>${title}</h1>\n${main}`
  const body = wrapper === "main" ? `<main>${content}</main>` : wrapper === "article" ? `<div class="wrap"><article>${content}</article></div>` : `<div>${content}</div>`
  return `<!doctype html><html><head><title>${title}</title><script>var zqscriptword = 1</script><style>.zqstyleword{}</style></head>
<body><header><p>zqheaderword Site banner</p>${nav}</header>
${body}
<aside>zqasideword related links</aside>
<footer>zqfooterword copyright and legal</footer></body></html>`
}
