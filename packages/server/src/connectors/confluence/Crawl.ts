import type { Models } from "confluence.js"
import { Effect } from "effect"
import type { CrawlPage, KindContext, SourceDocument } from "../Kind"
import { aclReader } from "./Acl"
import { type ConfluenceClient, ConfluenceError, confluenceClient } from "./Client"
import { type ConfluenceConfig, parseCredential, readConfluenceConfig } from "./Config"
import { storageToText } from "./Render"

/** Where a crawl is: a full walk (finds deletions) or the changes since the last crawl, space by space, page by page. */
export interface CrawlCursor {
  readonly active: boolean
  readonly mode: "FULL" | "CHANGES"
  readonly startedAt: string
  readonly since: string | null
  readonly spaceIndex: number
  readonly next: string | null
  readonly phase: "CONTENT" | "RECONCILE"
  readonly reconcileAfter: string | null
  /** A full walk retires what it did not see only when every space was listed to the end. */
  readonly clean: boolean
  readonly lastFullAt: string | null
}

const PAGE_SIZE = 25
const RECONCILE_PAGE = 200
/** Edits saved while a crawl ran are read again by the next: its lower bound starts a little before this one began. */
const SINCE_SLACK_MS = 5 * 60 * 1000
const EXPAND = "body.storage,version,ancestors,space"

/** CQL's date format, in UTC ("yyyy/MM/dd HH:mm"). */
const cqlDate = (iso: string) => {
  const d = new Date(iso)
  const two = (n: number) => String(n).padStart(2, "0")
  return `${d.getUTCFullYear()}/${two(d.getUTCMonth() + 1)}/${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}`
}

const searchLink = (spaceKey: string, since: string | null) => {
  const cql = `space="${spaceKey}" and type in (page,blogpost)${since ? ` and lastmodified >= "${cqlDate(since)}"` : ""} order by lastmodified asc`
  return `/rest/api/content/search?cql=${encodeURIComponent(cql)}&limit=${PAGE_SIZE}&expand=${EXPAND}`
}

export const contentExternalId = (content: Pick<Models.Content, "type" | "id">) => `${content.type}:${content.id}`
export const attachmentExternalId = (containerId: string, attachmentId: string) => `attachment:${containerId}:${attachmentId}`

/** The content id whose permissions govern an external id (an attachment's are its page's); null when not ours. */
export const governingContentId = (externalId: string) => {
  const match = /^(?:page|blogpost):(\d{1,30})$/.exec(externalId) ?? /^attachment:(\d{1,30}):[A-Za-z0-9_-]{1,60}$/.exec(externalId)
  return match ? match[1]! : null
}

const webUrl = (config: ConfluenceConfig, content: Models.Content) => {
  const webui = content._links?.webui
  return typeof webui === "string" && webui.startsWith("/") ? config.baseUrl + webui : null
}

const failureOf = (error: unknown) =>
  error instanceof ConfluenceError
    ? { code: error.code, message: error.message, fatal: error.status === 401 || error.code === "ADDRESS_NOT_ALLOWED" || error.code === "SOURCE_UNREACHABLE" }
    : { code: "CRAWL_FAILED", message: String((error as Error)?.message ?? error).slice(0, 300), fatal: false }

/** The documents of one content item: its body as text, and its attachments (skipped when too large). */
const documentsOf = async (client: ConfluenceClient, config: ConfluenceConfig, content: Models.Content, acl: SourceDocument["acl"], maxBytes: number) => {
  const documents: Array<SourceDocument> = []
  let skipped = 0
  documents.push({
    externalId: contentExternalId(content),
    title: content.title,
    bytes: new TextEncoder().encode(storageToText(content.title, content.body?.storage?.value ?? "")),
    fileName: `${content.title.replace(/[\\/:*?"<>|\x00-\x1f]/g, "_").slice(0, 120) || content.id}.md`,
    mediaType: "text/markdown",
    url: webUrl(config, content),
    classification: "INTERNAL",
    acl
  })
  let link: string | null = `/rest/api/content/${encodeURIComponent(content.id)}/child/attachment?limit=50`
  for (let pages = 0; link && pages < 20; pages++) {
    const attachments: Models.ContentArray = await client.json<Models.ContentArray>(link)
    for (const attachment of attachments.results) {
      const download = attachment._links?.download
      const size = Number((attachment as { extensions?: { fileSize?: number } }).extensions?.fileSize ?? 0)
      if (typeof download !== "string" || size > maxBytes) {
        skipped++
        continue
      }
      const bytes = await client.bytes(download, maxBytes)
      if (bytes === null) {
        skipped++
        continue
      }
      documents.push({
        externalId: attachmentExternalId(content.id, attachment.id),
        title: `${content.title}: ${attachment.title}`,
        bytes,
        fileName: attachment.title,
        mediaType: (attachment as { extensions?: { mediaType?: string } }).extensions?.mediaType ?? "application/octet-stream",
        url: webUrl(config, attachment),
        classification: "INTERNAL",
        acl
      })
    }
    link = attachments._links?.next ?? null
  }
  return { documents, skipped }
}

/**
 * One crawl step: one page of a space's pages and blog posts (with their attachments and ACLs), or one page of the
 * reconciliation that retires what a full walk did not see again. A step that meets a revoked credential or an
 * unreachable site stops the crawl (FAILED) where it is: nothing is retired, the next crawl resumes from there.
 */
export const crawlConfluence = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readConfluenceConfig(context.sourceConfig, context.settings)
    const credential = parseCredential(context.credential)
    const previous = (checkpoint ?? null) as CrawlCursor | null
    const empty = { documents: [], groups: [], deleted: [] }
    if (!read.ok) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Confluence configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No Confluence credential is set", fatal: true }] }
    const config = read.config
    const now = new Date()
    const cursor: CrawlCursor = previous?.active
      ? previous
      : {
        active: true,
        mode: !previous?.lastFullAt || now.getTime() - Date.parse(previous.lastFullAt) >= config.reconcileEveryHours * 3600_000 ? "FULL" : "CHANGES",
        startedAt: now.toISOString(),
        since: previous?.startedAt ? new Date(Date.parse(previous.startedAt) - SINCE_SLACK_MS).toISOString() : null,
        spaceIndex: 0,
        next: null,
        phase: "CONTENT",
        reconcileAfter: null,
        clean: true,
        lastFullAt: previous?.lastFullAt ?? null
      }
    const finished = (state: CrawlCursor): CrawlCursor => ({ ...state, active: false, next: null, reconcileAfter: null, lastFullAt: state.mode === "FULL" ? state.startedAt : state.lastFullAt })

    if (cursor.phase === "RECONCILE") {
      if (!context.documents) return { ...empty, checkpoint: finished(cursor), done: true }
      const stale = await Effect.runPromise(context.documents.notSeenSince(cursor.startedAt, cursor.reconcileAfter, RECONCILE_PAGE))
      const done = stale.length < RECONCILE_PAGE
      return { ...empty, deleted: stale, checkpoint: done ? finished(cursor) : { ...cursor, reconcileAfter: stale.at(-1)! }, done }
    }
    if (cursor.spaceIndex >= config.spaces.length) {
      const reconcile = cursor.mode === "FULL" && cursor.clean
      return { ...empty, checkpoint: reconcile ? { ...cursor, phase: "RECONCILE" } : finished(cursor), done: !reconcile }
    }

    const client = confluenceClient(config, credential, context.settings)
    const acls = aclReader(client)
    const spaceKey = config.spaces[cursor.spaceIndex]!
    const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
    const documents: Array<SourceDocument> = []
    let skipped = 0
    let results: Models.ContentArray
    try {
      results = await client.json<Models.ContentArray>(cursor.next ?? searchLink(spaceKey, cursor.mode === "CHANGES" ? cursor.since : null))
    } catch (error) {
      const failure = failureOf(error)
      if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
      // A space Lore may not list (gone, or the account lost it): the others go on, and nothing is retired this time.
      return { ...empty, checkpoint: { ...cursor, spaceIndex: cursor.spaceIndex + 1, next: null, clean: false }, done: false, failures: [{ ...failure, message: `space ${spaceKey}: ${failure.message}` }] }
    }
    for (const content of results.results) {
      try {
        const acl = await acls.aclOf(content, spaceKey)
        const found = await documentsOf(client, config, content, acl, context.settings.maxUploadBytes)
        documents.push(...found.documents)
        skipped += found.skipped
      } catch (error) {
        const failure = failureOf(error)
        if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
        failures.push({ ...failure, message: `${contentExternalId(content)}: ${failure.message}` })
      }
    }
    const next = typeof results._links?.next === "string" ? results._links.next : null
    return {
      documents,
      groups: [],
      deleted: [],
      skipped,
      failures,
      checkpoint: next ? { ...cursor, next } : { ...cursor, spaceIndex: cursor.spaceIndex + 1, next: null, clean: cursor.clean && failures.length === 0 },
      done: false
    }
  })
