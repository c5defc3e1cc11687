import { Parser } from "htmlparser2"

/** Never content, wherever they are: code, site chrome, and what a reader does not see. */
const CHROME = new Set(["head", "title", "script", "style", "noscript", "template", "svg", "math", "iframe", "object", "canvas", "nav", "aside", "form", "button", "select", "dialog"])
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "dialog", "menu", "menubar"])
/** Page-level header and footer: chrome when the content is the whole body, kept inside <main>/<article>. */
const PAGE_LEVEL = new Set(["header", "footer"])
/** Tags the cleaned document keeps (without attributes); others give their text only. */
const KEPT = new Set([
  "h1", "h2", "h3", "h4", "h5", "h6", "p", "ul", "ol", "li", "dl", "dt", "dd", "pre", "code", "blockquote", "table", "thead", "tbody",
  "tfoot", "tr", "th", "td", "caption", "br", "hr", "section", "div", "figure", "figcaption", "em", "strong", "b", "i", "header", "footer"
])
const VOID = new Set(["br", "hr", "img", "input", "meta", "link", "area", "base", "col", "embed", "source", "track", "wbr"])

export interface PageContent {
  /** <title>, else the first <h1> of the content, else null. */
  readonly title: string | null
  /** The main content as a small clean HTML document (deterministic: same page, same bytes). */
  readonly html: string
  /** Absolute http(s) links of the whole page (navigation included: it is how a crawl finds pages), fragments dropped. */
  readonly links: ReadonlyArray<string>
  /** <meta name="robots"> (or the crawler's own token): noindex keeps the page out, nofollow its links. */
  readonly noindex: boolean
  readonly nofollow: boolean
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
const squash = (text: string) => text.replace(/\s+/g, " ").trim()

const isChrome = (name: string, attribs: Record<string, string>) =>
  CHROME.has(name) || CHROME_ROLES.has((attribs.role ?? "").toLowerCase()) || "hidden" in attribs || attribs["aria-hidden"] === "true"
const isMain = (name: string, attribs: Record<string, string>) => name === "main" || (attribs.role ?? "").toLowerCase() === "main"

/** First pass: title, links, robots directives, and which container holds the content. */
const survey = (html: string, pageUrl: URL, robotsToken: string) => {
  let base = pageUrl
  let title: string | null = null
  let titleParts: Array<string> | null = null
  const links = new Set<string>()
  const robots: Array<string> = []
  let mains = 0
  let articles = 0
  let bodies = 0
  const parser = new Parser({
    onopentag(name, attribs) {
      if (name === "title" && title === null) titleParts = []
      else if (name === "base" && attribs.href) {
        try {
          base = new URL(attribs.href, pageUrl)
        } catch { /* an invalid <base> is ignored, as browsers do */ }
      } else if (name === "meta") {
        const metaName = (attribs.name ?? "").toLowerCase()
        if (metaName === "robots" || metaName === robotsToken) robots.push((attribs.content ?? "").toLowerCase())
      } else if ((name === "a" || name === "area") && attribs.href) {
        try {
          const link = new URL(attribs.href, base)
          if (link.protocol === "http:" || link.protocol === "https:") {
            link.hash = ""
            links.add(link.href)
          }
        } catch { /* not a URL: not a link to follow */ }
      }
      if (isMain(name, attribs)) mains++
      else if (name === "article") articles++
      else if (name === "body") bodies++
    },
    ontext(text) {
      if (titleParts) titleParts.push(text)
    },
    onclosetag(name) {
      if (name === "title" && titleParts) {
        title = squash(titleParts.join("")) || null
        titleParts = null
      }
    }
  }, { decodeEntities: true })
  parser.write(html)
  parser.end()
  const directives = robots.join(",").split(/[\s,]+/)
  return {
    title: title as string | null,
    links: [...links],
    container: mains > 0 ? "main" as const : articles > 0 ? "article" as const : bodies > 0 ? "body" as const : "fragment" as const,
    noindex: directives.includes("noindex") || directives.includes("none"),
    nofollow: directives.includes("nofollow") || directives.includes("none")
  }
}

/**
 * The main content of an HTML page: <main> (or role=main) when the page has one, else its <article>s, else
 * the body without its page-level header and footer; navigation, asides, forms, scripts and hidden elements
 * never count. Parsed with htmlparser2, as ingestion parses HTML; the result is HTML again, so ingestion
 * keeps its headings.
 */
export const extractPage = (html: string, pageUrl: URL, robotsToken = "lorebot"): PageContent => {
  const found = survey(html, pageUrl, robotsToken.toLowerCase())
  const out: Array<string> = []
  // A fragment without <body> is content from its first byte.
  let inside = found.container === "fragment" ? 1 : 0
  let skip = 0
  let firstH1: Array<string> | null = null
  let h1: string | null = null
  const opensContainer = (name: string, attribs: Record<string, string>) =>
    found.container === "main" ? isMain(name, attribs) : found.container === "article" ? name === "article" : name === "body"
  const stack: Array<{ container: boolean; kept: boolean; skipped: boolean }> = []

  const parser = new Parser({
    onopentag(name, attribs) {
      if (VOID.has(name)) {
        if (inside > 0 && skip === 0 && name === "br") out.push("<br>")
        return
      }
      const container = inside === 0 && opensContainer(name, attribs)
      const skipped = skip > 0 || isChrome(name, attribs) || ((found.container === "body" || found.container === "fragment") && PAGE_LEVEL.has(name))
      const kept = inside > 0 && !skipped && KEPT.has(name)
      stack.push({ container, kept, skipped })
      if (container) inside++
      if (skipped) skip++
      if (kept) out.push(`<${name}>`)
      if (name === "h1" && inside > 0 && skip === 0 && h1 === null) firstH1 = []
    },
    ontext(text) {
      if (inside > 0 && skip === 0) {
        out.push(escape(text))
        firstH1?.push(text)
      }
    },
    onclosetag(name) {
      if (VOID.has(name)) return
      const open = stack.pop()
      if (!open) return
      if (open.kept) out.push(`</${name}>`)
      if (open.skipped) skip--
      if (open.container) {
        inside--
        out.push("\n")
      }
      if (name === "h1" && firstH1) {
        h1 = squash(firstH1.join("")) || null
        firstH1 = null
      }
    }
  }, { decodeEntities: true })
  parser.write(html)
  parser.end()

  const title = found.title ?? h1
  const body = out.join("").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim()
  const document = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escape(title ?? pageUrl.pathname)}</title></head>\n<body>\n${body}\n</body></html>\n`
  return { title, html: document, links: found.links, noindex: found.noindex, nofollow: found.nofollow }
}

/** The <loc>s of a sitemap or sitemap index (parsed as XML with htmlparser2). */
export const sitemapEntries = (xml: string) => {
  const pages: Array<string> = []
  const sitemaps: Array<string> = []
  let within: "url" | "sitemap" | null = null
  let loc: Array<string> | null = null
  const parser = new Parser({
    onopentag(name) {
      const local = name.toLowerCase().replace(/^.*:/, "")
      if (local === "url" || local === "sitemap") within = local
      else if (local === "loc" && within) loc = []
    },
    ontext(text) {
      loc?.push(text)
    },
    onclosetag(name) {
      const local = name.toLowerCase().replace(/^.*:/, "")
      if (local === "loc" && loc) {
        const value = loc.join("").trim()
        if (value) (within === "sitemap" ? sitemaps : pages).push(value)
        loc = null
      } else if (local === "url" || local === "sitemap") within = null
    }
  }, { xmlMode: true, decodeEntities: true })
  parser.write(xml)
  parser.end()
  return { pages, sitemaps }
}
