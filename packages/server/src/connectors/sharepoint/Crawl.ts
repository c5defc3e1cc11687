import type { DriveItem, Permission } from "@microsoft/microsoft-graph-types"
import { Effect } from "effect"
import { type CrawlPage, type KindContext, type NativeAcl, type SourceDocument, type SourceGroupMembership, pageUnder } from "../Kind"
import { inParallel } from "../VendorHttp"
import { aclOfPermissions, organizationId } from "./Acl"
import { failureOf, type SharePointClient, SharePointError, sharePointClient } from "./Client"
import { parseSharePointCredential, readSharePointConfig } from "./Config"
import { type DriveRef, type Page, pagesOf, resolveDrives } from "./Drives"
import { membershipsOf, organizationMembership } from "./Groups"
import { isSitePage, pageDocumentOf } from "./Pages"

/**
 * Where a crawl is. Between crawls only `deltaLinks` (Graph's delta token per drive, the incremental checkpoint)
 * matters; during one, the drives resolved at its start, the drive being walked and the page link within it.
 */
export interface CrawlCursor {
  readonly active: boolean
  readonly startedAt: string | null
  readonly drives: ReadonlyArray<DriveRef>
  readonly driveIndex: number
  /** The next page of the current drive's delta walk (`@odata.nextLink`), null at its start. */
  readonly next: string | null
  /** The current drive is walked in full after its delta token expired (410): what it does not see again is retired. */
  readonly resyncSince: string | null
  readonly reconcileAfter: string | null
  readonly phase: "ITEMS" | "RECONCILE"
  readonly deltaLinks: Readonly<Record<string, string>>
  /** Groups (and the organization) whose members this crawl already yielded: each is read once per crawl. */
  readonly groupsResolved?: ReadonlyArray<string> | undefined
  /** Between crawls too: each drive's owner in sourceConfig (a site or a user), to tell a drive removed from one that failed. */
  readonly driveOwners?: Readonly<Record<string, string>> | undefined
  /** Drives no longer in the connection (their site or user taken out of sourceConfig, or gone): their documents are retired first. */
  readonly retiring?: ReadonlyArray<string> | undefined
  readonly retireAfter?: string | null | undefined
}

/** Groups whose members a crawl yields at most (the permission sync reads the rest). */
const MAX_GROUPS_PER_CRAWL = 5000

const RECONCILE_PAGE = 200
const FILE_CONCURRENCY = 4


export const itemExternalId = (driveId: string, itemId: string) => `${driveId}/${itemId}`
export const parseItemExternalId = (externalId: string) => {
  const match = /^([A-Za-z0-9!_.-]{1,200})\/([A-Za-z0-9!_.-]{1,200})$/.exec(externalId)
  return match ? { driveId: match[1]!, itemId: match[2]! } : null
}

const PARSEABLE = /\.(pdf|docx|txt|md|markdown|html?|csv|json|log)$/i
/** Formats Graph converts to PDF (`/content?format=pdf`): what Lore cannot parse itself but can read converted. */
const CONVERTIBLE = /\.(doc|docm|dot|dotx|rtf|odt|ppt|pptx|pptm|pps|ppsx|odp|xls|xlsx|xlsm|ods|msg|eml|tif|tiff)$/i

/** How a file is read: as it is, converted to PDF by Graph, or not at all (skipped and counted). */
export const readingOf = (item: Pick<DriveItem, "name" | "file">): "AS_IS" | "PDF" | "SKIP" => {
  const name = item.name ?? ""
  if (PARSEABLE.test(name) || (item.file?.mimeType ?? "").startsWith("text/")) return "AS_IS"
  if (CONVERTIBLE.test(name)) return "PDF"
  return "SKIP"
}

/** An item's permissions (all pages), as an ACL; unresolved (admits nobody) when Graph will not give them. */
export const aclOfItem = async (client: SharePointClient, driveId: string, itemId: string, tenantId: string, siteId: string | null): Promise<NativeAcl> => {
  const permissions: Array<Permission> = []
  try {
    for await (const page of pagesOf<Permission>(client, `/v1.0/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(itemId)}/permissions`)) permissions.push(...page)
  } catch (error) {
    if (error instanceof SharePointError && (error.status === 403 || error.code === "TOO_LARGE")) return { users: [], groups: [], unresolved: true }
    throw error
  }
  return aclOfPermissions(permissions, tenantId, siteId)
}

const documentOf = async (client: SharePointClient, drive: DriveRef, item: DriveItem, acl: NativeAcl, maxBytes: number): Promise<SourceDocument | "SKIP"> => {
  if (isSitePage(drive, item)) return pageDocumentOf(client, drive, item, acl, itemExternalId(drive.id, item.id!))
  const reading = readingOf(item)
  if (reading === "SKIP" || (item.size ?? 0) > maxBytes) return "SKIP"
  const path = `/v1.0/drives/${encodeURIComponent(drive.id)}/items/${encodeURIComponent(item.id!)}/content${reading === "PDF" ? "?format=pdf" : ""}`
  const bytes = await client.bytes(path, maxBytes)
  if (bytes === null) return "SKIP"
  const name = item.name ?? item.id!
  return {
    externalId: itemExternalId(drive.id, item.id!),
    title: name.replace(/\.[A-Za-z0-9]{1,8}$/, "") || name,
    bytes,
    fileName: reading === "PDF" ? `${name.replace(/\.[A-Za-z0-9]{1,8}$/, "")}.pdf` : name,
    mediaType: reading === "PDF" ? "application/pdf" : item.file?.mimeType ?? "application/octet-stream",
    url: typeof item.webUrl === "string" && /^https:\/\//.test(item.webUrl) ? item.webUrl : null,
    classification: "INTERNAL",
    acl
  }
}

const initial = (previous: CrawlCursor | null): CrawlCursor => ({
  active: true,
  startedAt: new Date().toISOString(),
  drives: [],
  driveIndex: -1,
  next: null,
  resyncSince: null,
  reconcileAfter: null,
  phase: "ITEMS",
  deltaLinks: previous?.deltaLinks ?? {},
  groupsResolved: [],
  driveOwners: previous?.driveOwners ?? {},
  retiring: [],
  retireAfter: null
})

/**
 * The drives a crawl held before and no longer finds, whose documents are to be retired: those whose owner (the site
 * or user that brought them in) resolved without error this time, or is gone from sourceConfig. A drive whose site
 * could not be read this time keeps its documents (and its delta token) until it can be.
 */
export const drivesToRetire = (cursor: Pick<CrawlCursor, "deltaLinks" | "driveOwners">, drives: ReadonlyArray<DriveRef>, failedKeys: ReadonlySet<string>) => {
  const current = new Set(drives.map((drive) => drive.id))
  const owners = cursor.driveOwners ?? {}
  const known = new Set([...Object.keys(cursor.deltaLinks), ...Object.keys(owners)])
  return [...known].filter((id) => !current.has(id) && (owners[id] !== undefined ? !failedKeys.has(owners[id]!) : failedKeys.size === 0))
}

/**
 * One crawl step. The first resolves the drives (chosen sites' document libraries and Site Pages, or every site's;
 * chosen users' OneDrives); the next ones retire the documents of drives the connection no longer covers (a site
 * taken out of sourceConfig), then each reads one page of a drive's delta (`/drives/{id}/root/delta`, from its stored
 * deltaLink when there is one: only what changed), with each file's permissions and bytes (a page's canvas text in
 * Site Pages), deletions retired. A 410
 * (resyncRequired) walks that drive in full again and then retires what the walk did not see. A revoked credential
 * or an unreachable Graph stops the crawl (FAILED) where it is; nothing is retired.
 */
export const crawlSharePoint = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readSharePointConfig(context.sourceConfig, context.settings)
    const credential = parseSharePointCredential(context.credential)
    const previous = (checkpoint ?? null) as CrawlCursor | null
    const empty = { documents: [], groups: [], deleted: [] }
    if (!read.ok) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "INVALID_CONFIG", message: "The SharePoint configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No SharePoint credential is set", fatal: true }] }
    const config = read.config
    const client = sharePointClient(config, credential, context.settings)
    const cursor = previous?.active ? previous : initial(previous)
    const finished = (state: CrawlCursor): CrawlCursor => ({ ...state, active: false, drives: [], driveIndex: -1, next: null, resyncSince: null, reconcileAfter: null, phase: "ITEMS", groupsResolved: [], retiring: [], retireAfter: null })
    const nextDrive = (state: CrawlCursor, deltaLinks = state.deltaLinks): CrawlCursor =>
      ({ ...state, driveIndex: state.driveIndex + 1, next: null, resyncSince: null, reconcileAfter: null, phase: "ITEMS", deltaLinks })

    if (cursor.driveIndex < 0) {
      try {
        const { drives, failures } = await resolveDrives(client, config)
        const fatal = failures.map((f) => failureOf(f.error)).find((f) => f.fatal)
        if (fatal) return { ...empty, checkpoint: previous, done: true, failures: [fatal] }
        const retiring = drivesToRetire(cursor, drives, new Set(failures.map((f) => f.key)))
        const gone = new Set(retiring)
        const without = <A>(record: Readonly<Record<string, A>>) => Object.fromEntries(Object.entries(record).filter(([id]) => !gone.has(id)))
        return {
          ...empty,
          // A retired drive's delta token goes with it: were its site added again, it would be walked in full.
          checkpoint: { ...cursor, drives, driveIndex: 0, retiring, retireAfter: null, deltaLinks: without(cursor.deltaLinks), driveOwners: { ...without(cursor.driveOwners ?? {}), ...Object.fromEntries(drives.map((drive) => [drive.id, drive.owner ?? ""])) } },
          done: false,
          failures: failures.map((f) => ({ ...failureOf(f.error), message: `${f.key.slice(0, 200)}: ${failureOf(f.error).message}` }))
        }
      } catch (error) {
        const failure = failureOf(error)
        return { ...empty, checkpoint: previous, done: true, failures: [{ ...failure, fatal: true }] }
      }
    }
    const [retiringDrive, ...stillRetiring] = cursor.retiring ?? []
    if (retiringDrive !== undefined) {
      // A drive the connection no longer covers: its documents, a page at a time (external ids sort by drive).
      if (!context.documents) return { ...empty, checkpoint: { ...cursor, retiring: stillRetiring, retireAfter: null }, done: false }
      const held = await pageUnder(context.documents.page, `${retiringDrive}/`, cursor.retireAfter, RECONCILE_PAGE)
      return { ...empty, deleted: held.ids, checkpoint: held.next ? { ...cursor, retireAfter: held.next } : { ...cursor, retiring: stillRetiring, retireAfter: null }, done: false }
    }
    const drive = cursor.drives[cursor.driveIndex]
    if (!drive) return { ...empty, checkpoint: finished(cursor), done: true }

    if (cursor.phase === "RECONCILE") {
      // After a full walk of one drive (its token had expired): its documents not written since the walk began are gone.
      if (!context.documents) return { ...empty, checkpoint: nextDrive(cursor), done: false }
      const documents = context.documents
      const stale = await pageUnder((after, limit) => documents.notSeenSince(cursor.resyncSince!, after, limit), `${drive.id}/`, cursor.reconcileAfter, RECONCILE_PAGE)
      return { ...empty, deleted: stale.ids, checkpoint: stale.next ? { ...cursor, reconcileAfter: stale.next } : nextDrive(cursor), done: false }
    }

    const start = `/v1.0/drives/${encodeURIComponent(drive.id)}/root/delta`
    let page: Page<DriveItem>
    try {
      page = await client.graph<Page<DriveItem>>(cursor.next ?? cursor.deltaLinks[drive.id] ?? start)
    } catch (error) {
      const storedToken = cursor.next === null && cursor.deltaLinks[drive.id] !== undefined
      // A stored token on another Graph host (LORE_CONNECTOR_BASE_URLS changed) is as good as expired.
      if (error instanceof SharePointError && (error.status === 410 || (storedToken && error.code === "ADDRESS_NOT_ALLOWED" && error.status === 0 && /another host/.test(error.message)))) {
        // The delta token expired (resyncRequired): walk the drive in full from the start, then retire what was not seen.
        const { [drive.id]: _expired, ...deltaLinks } = cursor.deltaLinks
        return { ...empty, checkpoint: { ...cursor, next: start, resyncSince: new Date().toISOString(), deltaLinks }, done: false }
      }
      const failure = failureOf(error)
      if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
      return { ...empty, checkpoint: nextDrive(cursor), done: false, failures: [{ ...failure, message: `drive ${drive.name.slice(0, 100)}: ${failure.message}` }] }
    }

    const documents: Array<SourceDocument> = []
    const deleted: Array<string> = []
    const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
    let skipped = 0
    const named = new Set<string>()
    const files: Array<DriveItem> = []
    for (const item of page.value ?? []) {
      if (!item.id) continue
      if (item.deleted) deleted.push(itemExternalId(drive.id, item.id))
      else if (item.file) files.push(item)
    }
    // A few files at a time (permissions, then bytes): Graph answers each in tens of milliseconds, and a delta page
    // holds up to a few hundred. Results are applied in the page's order.
    const outcomes = await inParallel(files, FILE_CONCURRENCY, async (item) => {
      try {
        const acl = await aclOfItem(client, drive.id, item.id!, config.tenantId, drive.siteId)
        return { item, acl, document: await documentOf(client, drive, item, acl, context.settings.maxUploadBytes) }
      } catch (error) {
        return { item, error }
      }
    })
    for (const outcome of outcomes) {
      if ("error" in outcome) {
        const failure = failureOf(outcome.error)
        if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
        if (outcome.error instanceof SharePointError && outcome.error.status === 404) continue
        failures.push({ ...failure, message: `${(outcome.item.name ?? outcome.item.id!).slice(0, 100)}: ${failure.message}` })
        continue
      }
      for (const group of outcome.acl.groups) named.add(group.id)
      for (const organization of outcome.acl.organizations ?? []) named.add(organization.id)
      if (outcome.document === "SKIP") skipped++
      else documents.push(outcome.document)
    }
    // The members of the groups these documents name, read once per crawl, so the documents admit them at once.
    const resolved = new Set(cursor.groupsResolved ?? [])
    const groups: Array<SourceGroupMembership> = []
    try {
      const organization = organizationId(config.tenantId)
      if (named.has(organization) && !resolved.has(organization)) {
        resolved.add(organization)
        groups.push(await organizationMembership(client, config.tenantId))
      }
      named.delete(organization)
      if (resolved.size < MAX_GROUPS_PER_CRAWL) {
        const found = await membershipsOf(client, [...named], config.tenantId, resolved)
        groups.push(...found.memberships)
        failures.push(...found.failures)
      }
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error)] }
    }
    const nextLink = page["@odata.nextLink"]
    const deltaLink = page["@odata.deltaLink"]
    let following: CrawlCursor
    const progressed = { ...cursor, groupsResolved: [...resolved] }
    if (nextLink) following = { ...progressed, next: nextLink }
    else {
      // The walk of this drive is over: keep its new delta token (the next crawl reads only what changed after it).
      const deltaLinks = deltaLink ? { ...cursor.deltaLinks, [drive.id]: deltaLink } : cursor.deltaLinks
      following = cursor.resyncSince && failures.length === 0
        ? { ...progressed, next: null, phase: "RECONCILE", reconcileAfter: null, deltaLinks }
        : nextDrive(progressed, deltaLinks)
    }
    const done = following.driveIndex >= cursor.drives.length
    return { documents, groups, deleted, skipped, failures, checkpoint: done ? finished(following) : following, done }
  })
