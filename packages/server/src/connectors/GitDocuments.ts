import { posix } from "node:path"
import type { GitConfig } from "./GitConfig"

/** The file types a GIT connection indexes, by extension; every other file is skipped. */
export const MEDIA_TYPES: Readonly<Record<string, string>> = {
  md: "text/markdown",
  markdown: "text/markdown",
  txt: "text/plain",
  html: "text/html",
  htm: "text/html",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
}

export const mediaTypeOf = (path: string): string | undefined => {
  const dot = path.lastIndexOf(".")
  return dot > path.lastIndexOf("/") ? MEDIA_TYPES[path.slice(dot + 1).toLowerCase()] : undefined
}

/** Whether a path lies under one of the prefixes (none = the whole repository). */
export const underPaths = (paths: ReadonlyArray<string>, path: string) =>
  paths.length === 0 || paths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`))

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " " }

const clean = (text: string) =>
  text
    .replace(/<[^>]*>/g, "")
    .replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (all, name: string) =>
      name.startsWith("#x") || name.startsWith("#X") ? String.fromCodePoint(parseInt(name.slice(2), 16))
        : name.startsWith("#") ? String.fromCodePoint(Number(name.slice(1)))
          : ENTITIES[name.toLowerCase()] ?? all)
    .replace(/\s+/g, " ")
    .trim()

/** A Markdown file's title: its front matter's `title:`, else its first heading outside code blocks. */
const markdownTitle = (text: string): string | null => {
  let body = text.replace(/^\uFEFF/, "")
  const front = /^---\r?\n([\s\S]*?)\r?\n---\s*(\r?\n|$)/.exec(body)
  if (front) {
    const title = /^title:\s*(.+?)\s*$/m.exec(front[1]!)?.[1]?.replace(/^(["'])(.*)\1$/, "$2")
    if (title && title.trim()) return title.trim()
    body = body.slice(front[0].length)
  }
  let fence: string | null = null
  for (const line of body.split(/\r?\n/)) {
    const opens = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (opens) {
      if (fence === null) fence = opens[1]![0]!
      else if (opens[1]![0] === fence) fence = null
      continue
    }
    if (fence !== null) continue
    const heading = /^\s{0,3}#{1,6}\s+(.*?)(\s+#+)?\s*$/.exec(line)
    if (heading && heading[1]!.trim()) return heading[1]!.trim()
  }
  return null
}

const htmlTitle = (text: string): string | null => {
  const found = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text)?.[1] ?? /<h1[^>]*>([\s\S]*?)<\/h1>/i.exec(text)?.[1]
  const title = found === undefined ? "" : clean(found)
  return title || null
}

/** The document's title: the Markdown heading or HTML title where there is one, else the file's name. */
export const titleOf = (path: string, mediaType: string, bytes: Uint8Array) => {
  const head = mediaType.startsWith("text/") ? new TextDecoder("utf-8", { fatal: false }).decode(bytes.subarray(0, 65_536)) : ""
  const found = mediaType === "text/markdown" ? markdownTitle(head) : mediaType === "text/html" ? htmlTitle(head) : null
  return (found ?? posix.basename(path)).slice(0, 500)
}

/** Where a person can read the file: the configured template, else the file view of a known code host. */
const knownHostTemplate = (repository: string): string | null => {
  let url: URL
  try {
    url = new URL(repository)
  } catch {
    return null
  }
  if (url.protocol !== "https:") return null
  const segments = url.pathname.replace(/\/+$/, "").replace(/\.git$/, "").split("/").filter(Boolean)
  const base = `https://${url.host}/${segments.join("/")}`
  const host = url.host.toLowerCase()
  if (segments.length < 2) return null
  if (host === "github.com" && segments.length === 2) return `${base}/blob/{branch}/{path}`
  if ((host === "codeberg.org" || host === "gitea.com") && segments.length === 2) return `${base}/src/branch/{branch}/{path}`
  if (host === "bitbucket.org" && segments.length === 2) return `${base}/src/{branch}/{path}`
  if (host === "gitlab.com") return `${base}/-/blob/{branch}/{path}`
  return null
}

export const browseUrlOf = (config: GitConfig, commit: string, path: string): string | null => {
  const template = config.browseUrl ?? knownHostTemplate(config.repository)
  if (template === null) return null
  const encoded = path.split("/").map(encodeURIComponent).join("/")
  const url = template.replaceAll("{branch}", config.branch.split("/").map(encodeURIComponent).join("/")).replaceAll("{commit}", commit).replaceAll("{path}", encoded)
  return url.length <= 2000 ? url : null
}
