import { createHash } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import { gunzipSync } from "node:zlib"
import robotsParser from "robots-parser"
import type { LoreSettings } from "../../Config"
import type { CrawlPage, SourceDocument } from "../Kind"
import { type FetchFailure, type Fetched, fetchUrl, header } from "./Fetch"
import { extractPage, sitemapEntries } from "./Html"
import { canonicalUrl, robotsToken, type WebConfig, webPolicy, withinPrefixes } from "./WebConfig"

/** Fetches per crawl step: the checkpoint is stored after each, so a killed crawl loses at most this many. */
export const FETCHES_PER_STEP = 20
/** Sitemaps (indexes included) read per crawl. */
const MAX_SITEMAPS = 50
/** Outgoing links remembered per page (to follow them again when the page answers 304). */
const MAX_LINKS_PER_PAGE = 2000
/** robots.txt past this size is cut (as Google does at 500 KiB). */
const MAX_ROBOTS_BYTES = 500 * 1024

/** Media types indexed as they are when linked within the prefixes (what ingestion parses); others are skipped. */
const RAW_TYPES: Record<string, string> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/markdown": "md",
  "text/x-markdown": "md",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx"
}
const HTML_TYPES = new Set(["text/html", "application/xhtml+xml"])

/** What the last fetch of a page said: validators for conditional GETs, the digest of what was yielded, its links. */
interface KnownPage {
  /** ETag */
  readonly e?: string
  /** Last-Modified */
  readonly m?: string
  /** sha256 of the yielded document (or of the body when it was not indexed) */
  readonly h: string
  /** Whether the page is indexed (a document with this URL as external id exists) */
  readonly x: boolean
  /** Its in-prefix links, as indexes into the checkpoint's `urls` */
  readonly l: ReadonlyArray<number>
}

/** One crawl in progress: the frontier, what this crawl has visited and kept, robots.txt per origin. */
interface Run {
  readonly startedAt: string
  /** robots.txt text per origin ("" when there is none: everything is allowed) */
  robots: Record<string, string>
  sitemaps: Array<string>
  sitemapsRead: number
  queue: Array<string>
  /** Every URL ever queued by this crawl (a URL is fetched once per crawl) */
  seen: Array<string>
  /** Pages fetched by this crawl (their final URLs) */
  visited: Array<string>
  /** Indexed pages this crawl found present (200, 304, or a passing failure of a page indexed before) */
  kept: Array<string>
  fetches: number
  lastFetchAt: number
  stats: { ok: number; notModified: number; gone: number; skipped: number; failed: number }
}

/** The WEB checkpoint: validators of the pages seen by the last crawls, and the crawl in progress (null between crawls). */
export interface WebCheckpoint {
  readonly v: 1
  urls: Array<string>
  known: Record<string, KnownPage>
  run: Run | null
  last?: Run["stats"] & { finishedAt: string; fetches: number }
}

const emptyCheckpoint = (): WebCheckpoint => ({ v: 1, urls: [], known: {}, run: null })

const decode = (checkpoint: unknown): WebCheckpoint =>
  checkpoint !== null && typeof checkpoint === "object" && (checkpoint as { v?: unknown }).v === 1 ? structuredClone(checkpoint as WebCheckpoint) : emptyCheckpoint()

const sha256 = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex")
/** A page's media type is wanted when Lore indexes it (HTML, or a type ingestion parses); none declared: look. */
const wantedType = (headers: IncomingHttpHeaders) => {
  const type = (header(headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase()
  return type === "" || HTML_TYPES.has(type) || RAW_TYPES[type] !== undefined
}
/** Sitemaps may come gzipped as files (sitemap.xml.gz), not only with Content-Encoding. */
const sitemapText = (body: Uint8Array) => Buffer.from(body[0] === 0x1f && body[1] === 0x8b ? gunzipSync(body, { maxOutputLength: 50 * 1024 * 1024 }) : body).toString("utf8")
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const mediaTypeOf = (fetched: Fetched) => (header(fetched.headers, "content-type") ?? "").split(";")[0]!.trim().toLowerCase()
const isRetryable = (status: number) => status === 401 || status === 403 || status === 408 || status === 429 || status >= 500

export interface WebContext {
  readonly config: WebConfig
  readonly credential: string | null
  readonly settings: LoreSettings
  /** Set when the crawl is interrupted (shutdown): requests in flight are abandoned. */
  readonly signal?: AbortSignal
}

/** Request options shared by every fetch of a crawl: the SSRF guard, bounds, the user agent and the credential. */
export const fetchOptions = (context: WebContext, followsTo: (url: URL) => boolean, extraHeaders: Record<string, string> = {}) => ({
  headers: {
    "user-agent": context.config.userAgent,
    accept: "text/html,application/xhtml+xml,application/pdf,text/plain,text/markdown;q=0.9,*/*;q=0.1",
    ...(context.credential ? { authorization: context.credential } : {}),
    ...extraHeaders
  },
  timeoutMs: context.settings.webCrawl.fetchTimeoutMs,
  maxBytes: context.settings.maxUploadBytes,
  policy: webPolicy(context.settings),
  followsTo,
  signal: context.signal
})

const sameOrigin = (origin: string) => (url: URL) => url.origin === origin

/** robots.txt of an origin: its text ("" when absent), or a failure that stops the crawl (unreachable, 5xx). */
export const fetchRobots = async (context: WebContext, origin: string): Promise<{ text: string } | FetchFailure> => {
  const reply = await fetchUrl(new URL("/robots.txt", origin), fetchOptions(context, sameOrigin(origin), { accept: "text/plain" }))
  if (reply._tag === "Failure") return reply.code === "REDIRECT_NOT_FOLLOWED" || reply.code === "TOO_MANY_REDIRECTS" ? { text: "" } : reply
  if (reply.status >= 500 || reply.status === 429) return { _tag: "Failure", code: "UNREACHABLE", message: `${origin}/robots.txt answered ${reply.status}` }
  if (reply.status !== 200) return { text: "" }
  return { text: Buffer.from(reply.body.subarray(0, MAX_ROBOTS_BYTES)).toString("utf8") }
}

export const robotsOf = (origin: string, text: string) => robotsParser(`${origin}/robots.txt`, text)

/**
 * One crawl step: up to FETCHES_PER_STEP fetches from the frontier. A new crawl starts from the start URLs and
 * the sitemaps; each page is fetched once per crawl, conditionally when a previous crawl left validators (304:
 * nothing is yielded, its remembered links are followed); its in-prefix links join the frontier. When the
 * frontier is empty (or maxPages were fetched) the pages indexed before that this crawl did not keep are yielded
 * as deleted. A site that cannot be reached at all (its robots.txt unreachable) ends the crawl with a fatal
 * failure and deletes nothing.
 */
export const crawlStep = async (context: WebContext, checkpoint: unknown): Promise<CrawlPage> => {
  const { config, settings } = context
  const state = decode(checkpoint)
  const token = robotsToken(config.userAgent)
  const origins = [...new Set(config.prefixes.map((prefix) => new URL(prefix).origin))]
  const admitted = (url: URL) => withinPrefixes(canonicalUrl(url), config.prefixes)

  if (state.run === null) {
    state.run = {
      startedAt: new Date().toISOString(),
      robots: {},
      sitemaps: config.sitemap ? [...new Set([...origins.map((origin) => `${origin}/sitemap.xml`), ...config.prefixes.map((prefix) => new URL("sitemap.xml", prefix).href)])] : [],
      sitemapsRead: 0,
      queue: [...config.startUrls],
      seen: [...config.startUrls],
      visited: [],
      kept: [],
      fetches: 0,
      lastFetchAt: 0,
      stats: { ok: 0, notModified: 0, gone: 0, skipped: 0, failed: 0 }
    }
  }
  const run = state.run
  const seen = new Set(run.seen)
  const visited = new Set(run.visited)
  const kept = new Set(run.kept)
  const urlIndex = new Map(state.urls.map((url, i) => [url, i]))
  const intern = (url: string) => {
    let index = urlIndex.get(url)
    if (index === undefined) {
      index = state.urls.push(url) - 1
      urlIndex.set(url, index)
    }
    return index
  }
  const maxSeen = config.maxPages * 4
  const enqueue = (url: string) => {
    if (seen.has(url) || seen.size >= maxSeen) return
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return
    }
    const canonical = canonicalUrl(parsed)
    if (!withinPrefixes(canonical, config.prefixes) || seen.has(canonical)) return
    seen.add(canonical)
    run.queue.push(canonical)
  }

  const documents: Array<SourceDocument> = []
  const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
  const finish = (outcome: "done" | "more"): CrawlPage => {
    run.seen = [...seen]
    run.visited = [...visited]
    run.kept = [...kept]
    if (outcome === "more") return { documents, groups: [], deleted: [], checkpoint: state, done: false, failures }
    // The crawl is over: what was indexed and not kept is gone; validators stay only for pages this crawl saw.
    const deleted = Object.entries(state.known).filter(([url, page]) => page.x && !kept.has(url)).map(([url]) => url)
    const known: Record<string, KnownPage> = {}
    for (const [url, page] of Object.entries(state.known)) if (visited.has(url) || kept.has(url)) known[url] = page
    // Compact the URL table to the links still remembered.
    const urls: Array<string> = []
    const renumber = new Map<number, number>()
    for (const [url, page] of Object.entries(known)) {
      known[url] = {
        ...page,
        l: page.l.map((i) => {
          let j = renumber.get(i)
          if (j === undefined) {
            j = urls.push(state.urls[i]!) - 1
            renumber.set(i, j)
          }
          return j
        })
      }
    }
    const next: WebCheckpoint = { v: 1, urls, known, run: null, last: { ...run.stats, fetches: run.fetches, finishedAt: new Date().toISOString() } }
    return { documents, groups: [], deleted, checkpoint: next, done: true, failures }
  }
  const abort = (failure: FetchFailure): CrawlPage => {
    // Nothing is deleted: the site may only be down. The next crawl starts over, with the validators kept.
    failures.push({ code: failure.code === "ADDRESS_NOT_ALLOWED" ? "ADDRESS_NOT_ALLOWED" : "SITE_UNREACHABLE", message: failure.message, fatal: true })
    return { documents, groups: [], deleted: [], checkpoint: { ...state, run: null }, done: true, failures }
  }

  /** robots.txt of an origin, fetched once per crawl; a failure (unreachable, 5xx) stops the crawl. */
  const robotsFor = async (origin: string) => {
    if (run.robots[origin] === undefined) {
      const fetched = await fetchRobots(context, origin)
      if ("_tag" in fetched) return fetched
      run.robots[origin] = fetched.text
      const parsed = robotsOf(origin, fetched.text)
      if (config.sitemap) {
        for (const sitemap of parsed.getSitemaps()) {
          try {
            const url = new URL(sitemap)
            if (origins.includes(url.origin) && !run.sitemaps.includes(url.href)) run.sitemaps.push(url.href)
          } catch { /* not a URL */ }
        }
      }
    }
    return robotsOf(origin, run.robots[origin]!)
  }
  const delayMs = (robots: ReturnType<typeof robotsOf>) =>
    Math.min(Math.max(0, (robots.getCrawlDelay(token) ?? 0) * 1000), settings.webCrawl.maxCrawlDelayMs)
  const politely = async (robots: ReturnType<typeof robotsOf>) => {
    const wait = run.lastFetchAt + delayMs(robots) - Date.now()
    if (wait > 0) await sleep(wait)
    run.lastFetchAt = Date.now()
  }

  for (let fetches = 0; fetches < FETCHES_PER_STEP;) {
    // Sitemaps first: they name the pages at once.
    const sitemap = run.sitemaps.length > 0 && run.sitemapsRead < MAX_SITEMAPS ? run.sitemaps.shift()! : null
    if (sitemap !== null) {
      const origin = new URL(sitemap).origin
      const robots = await robotsFor(origin)
      if ("_tag" in robots) return abort(robots)
      fetches++
      run.sitemapsRead++
      await politely(robots)
      const reply = await fetchUrl(new URL(sitemap), fetchOptions(context, sameOrigin(origin), { accept: "application/xml,text/xml;q=0.9,*/*;q=0.1" }))
      if (reply._tag === "Response" && reply.status === 200) {
        let entries: ReturnType<typeof sitemapEntries> = { pages: [], sitemaps: [] }
        try {
          entries = sitemapEntries(sitemapText(reply.body))
        } catch { /* a damaged gzip: no entries */ }
        for (const page of entries.pages) enqueue(page)
        for (const child of entries.sitemaps) {
          try {
            const url = new URL(child)
            if (origins.includes(url.origin) && !run.sitemaps.includes(url.href)) run.sitemaps.push(url.href)
          } catch { /* not a URL */ }
        }
      }
      continue
    }
    if (run.sitemaps.length > 0) run.sitemaps = []

    const next = run.fetches < config.maxPages ? run.queue.shift() : undefined
    if (next === undefined) return finish("done")
    if (visited.has(next)) continue
    const target = new URL(next)
    const robots = await robotsFor(target.origin)
    if ("_tag" in robots) return abort(robots)
    if (robots.isDisallowed(next, token)) {
      run.stats.skipped++
      continue
    }
    fetches++
    run.fetches++
    await politely(robots)
    const before = state.known[next]
    const conditional: Record<string, string> = {}
    if (before?.e) conditional["if-none-match"] = before.e
    if (before?.m) conditional["if-modified-since"] = before.m
    // Redirects are not followed here: their target joins the frontier, so each URL is fetched once per crawl.
    const reply = await fetchUrl(target, { ...fetchOptions(context, admitted, conditional), followRedirects: false, wants: wantedType })
    visited.add(next)

    /** The page stays as it was (304, or a passing failure): keep it and follow the links it had. */
    const keepAsBefore = (url: string) => {
      const page = state.known[url]
      if (!page) return
      if (page.x) kept.add(url)
      for (const i of page.l) enqueue(state.urls[i]!)
    }
    if (reply._tag === "Failure") {
      if (reply.code === "REDIRECT_NOT_FOLLOWED" || reply.code === "TOO_MANY_REDIRECTS") run.stats.skipped++
      else {
        run.stats.failed++
        failures.push({ code: `PAGE_${reply.code}`, message: reply.message })
        if (reply.code !== "TOO_LARGE") keepAsBefore(next)
      }
      continue
    }
    if (reply.status === 304) {
      run.stats.notModified++
      keepAsBefore(next)
      continue
    }
    if (reply.status === 404 || reply.status === 410) {
      run.stats.gone++
      continue
    }
    const location = header(reply.headers, "location")
    if (reply.status >= 300 && reply.status < 400 && location !== undefined) {
      run.stats.skipped++
      try {
        const moved = new URL(location, target)
        if (moved.protocol === "http:" || moved.protocol === "https:") enqueue(moved.href)
      } catch { /* an invalid Location: nothing to follow */ }
      continue
    }
    if (reply.status !== 200) {
      if (isRetryable(reply.status)) {
        run.stats.failed++
        failures.push({ code: reply.status === 401 || reply.status === 403 ? "PAGE_ACCESS_DENIED" : "PAGE_UNAVAILABLE", message: `${next} answered ${reply.status}` })
        keepAsBefore(next)
      } else run.stats.skipped++
      continue
    }

    const url = next
    run.stats.ok++
    const mediaType = mediaTypeOf(reply)
    const validators = { ...(header(reply.headers, "etag") ? { e: header(reply.headers, "etag")! } : {}), ...(header(reply.headers, "last-modified") ? { m: header(reply.headers, "last-modified")! } : {}) }
    const previous = state.known[url]
    let document: SourceDocument | null = null
    let links: ReadonlyArray<string> = []
    let digest: string
    if (HTML_TYPES.has(mediaType) || (mediaType === "" && /<html[\s>]/i.test(Buffer.from(reply.body.subarray(0, 2048)).toString("latin1")))) {
      const page = extractPage(Buffer.from(reply.body).toString("utf8"), reply.url, token)
      links = page.nofollow ? [] : page.links
      const bytes = new TextEncoder().encode(page.html)
      digest = sha256(bytes)
      if (!page.noindex) {
        document = {
          externalId: url, title: (page.title ?? reply.url.pathname).slice(0, 500), bytes, fileName: fileNameOf(reply.url, "html"),
          mediaType: "text/html", url, classification: config.classification, acl: null
        }
      }
    } else if (RAW_TYPES[mediaType]) {
      digest = sha256(reply.body)
      document = {
        externalId: url, title: (lastSegment(reply.url) || reply.url.hostname).slice(0, 500), bytes: reply.body,
        fileName: fileNameOf(reply.url, RAW_TYPES[mediaType]!), mediaType, url, classification: config.classification, acl: null
      }
    } else {
      // A type Lore does not index (its body was not even downloaded): remember its validators, so the next crawl
      // asks conditionally, and nothing else.
      run.stats.skipped++
      state.known[url] = { ...validators, h: "", x: false, l: [] }
      continue
    }
    for (const link of links) enqueue(link)
    const ownLinks = links.map((link) => {
      try {
        return canonicalUrl(link)
      } catch {
        return ""
      }
    }).filter((link) => link !== "" && withinPrefixes(link, config.prefixes)).slice(0, MAX_LINKS_PER_PAGE)
    state.known[url] = { ...validators, h: digest, x: document !== null, l: [...new Set(ownLinks)].map(intern) }
    if (document) {
      kept.add(url)
      // Unchanged content (a server without validators) is not yielded again: nothing to re-ingest.
      if (!(previous?.x && previous.h === digest)) documents.push(document)
    }
  }
  return finish(run.queue.length === 0 && run.sitemaps.length === 0 ? "done" : "more")
}

const lastSegment = (url: URL) => {
  const raw = url.pathname.split("/").pop() ?? ""
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

const fileNameOf = (url: URL, extension: string) => {
  const last = lastSegment(url).replace(/[^\w.-]+/g, "_")
  const base = last === "" ? "index" : last
  return base.toLowerCase().endsWith(`.${extension}`) ? base : `${base}.${extension}`
}

/** What activity shows of a WEB checkpoint: counts, not the validators of every URL. */
export const describeWebCheckpoint = (checkpoint: unknown) => {
  const state = decode(checkpoint)
  return {
    inProgress: state.run !== null,
    cursor: {
      pagesKnown: Object.keys(state.known).length,
      pagesIndexed: Object.values(state.known).filter((page) => page.x).length,
      crawl: state.run === null ? null : {
        startedAt: state.run.startedAt, fetches: state.run.fetches, queued: state.run.queue.length, visited: state.run.visited.length, ...state.run.stats
      },
      lastCrawl: state.last ?? null
    }
  }
}
