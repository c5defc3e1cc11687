import type { drive_v3 } from "@googleapis/drive"
import { Effect } from "effect"
import { type CrawlPage, type KindContext, type NativeAcl, type SourceDocument, type SourceGroupMembership, pageUnder } from "../Kind"
import { inParallel } from "../VendorHttp"
import { failureOf, GoogleDriveError, type GoogleDriveClient, googleDriveClient, withPageToken } from "./Client"
import { type GoogleDriveConfig, parseGoogleDriveCredential, readGoogleDriveConfig } from "./Config"
import { aclOfFile, type DriveUnit, fileExternalId, resolveUnits, subjectOf, unitKey } from "./Drives"
import { membershipsOf } from "./Groups"

/**
 * Where a crawl is. Between crawls only `startTokens` (Drive's change page token per unit, the incremental checkpoint)
 * matters; during one, the units resolved at its start, the unit being read, and the page within it: a first read of
 * a unit lists its files (after taking a start page token, so nothing changed during the listing is missed), later
 * ones read `changes.list` from the stored token.
 */
export interface CrawlCursor {
  readonly active: boolean
  readonly units: ReadonlyArray<DriveUnit>
  readonly unitIndex: number
  readonly phase: "LIST" | "CHANGES" | "RECONCILE"
  /** The next page of the current unit's listing or changes (Drive's `nextPageToken`); null at its start. */
  readonly pageToken: string | null
  /** The start page token taken before the current unit's full listing: stored once the listing is over. */
  readonly pendingStart: string | null
  readonly startTokens: Readonly<Record<string, string>>
  /**
   * Set when the current unit is listed in full again because Drive refused its stored token: when the listing
   * began. The unit's documents not written since are then retired (RECONCILE, from `reconcileAfter`).
   */
  readonly resyncSince?: string | null | undefined
  readonly reconcileAfter?: string | null | undefined
  /** Groups and domains whose members this crawl already yielded: each is read once per crawl. */
  readonly groupsResolved?: ReadonlyArray<string> | undefined
  /** Units no longer in the connection (a shared drive or user taken out of sourceConfig, or gone): their documents are retired first. */
  readonly retiring?: ReadonlyArray<string> | undefined
  readonly retireAfter?: string | null | undefined
}

const MAX_GROUPS_PER_CRAWL = 5000
const FILE_CONCURRENCY = 4
const PAGE_SIZE = 100
const FILE_FIELDS = "id,name,mimeType,size,webViewLink,trashed,ownedByMe,driveId"
const RECONCILE_PAGE = 200

export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
/** Google's own formats Lore reads through `files.export`: Docs as Word (headings kept), Sheets as CSV (the first sheet), Slides as text. */
export const EXPORTS: Readonly<Record<string, { readonly mimeType: string; readonly extension: string }>> = {
  "application/vnd.google-apps.document": { mimeType: DOCX, extension: "docx" },
  "application/vnd.google-apps.spreadsheet": { mimeType: "text/csv", extension: "csv" },
  "application/vnd.google-apps.presentation": { mimeType: "text/plain", extension: "txt" }
}
const PARSEABLE_NAME = /\.(pdf|docx|txt|md|markdown|html?|csv|json|log)$/i
const PARSEABLE_TYPES = new Set(["application/pdf", DOCX, "application/json"])

/**
 * How a file is read: exported (a Google Doc, Sheet or Slides), downloaded as it is (`alt=media`: PDF, Word, text),
 * not at all and counted (a type Lore cannot parse and Drive cannot convert: other Google formats, Office files other
 * than .docx, media), or passed over (folders, and shortcuts: their target is read where it lives).
 */
export const readingOf = (file: Pick<drive_v3.Schema$File, "name" | "mimeType">): { readonly kind: "EXPORT"; readonly mimeType: string; readonly extension: string } | { readonly kind: "MEDIA" } | { readonly kind: "SKIP" } | { readonly kind: "IGNORE" } => {
  const mimeType = file.mimeType ?? ""
  if (mimeType === "application/vnd.google-apps.folder" || mimeType === "application/vnd.google-apps.shortcut") return { kind: "IGNORE" }
  const exported = EXPORTS[mimeType]
  if (exported) return { kind: "EXPORT", ...exported }
  if (mimeType.startsWith("application/vnd.google-apps.")) return { kind: "SKIP" }
  if (PARSEABLE_NAME.test(file.name ?? "") || PARSEABLE_TYPES.has(mimeType) || mimeType.startsWith("text/")) return { kind: "MEDIA" }
  return { kind: "SKIP" }
}

const documentOf = async (client: GoogleDriveClient, subject: string, unit: DriveUnit, file: drive_v3.Schema$File, acl: NativeAcl, maxBytes: number): Promise<SourceDocument | "SKIP"> => {
  const reading = readingOf(file)
  if (reading.kind !== "EXPORT" && reading.kind !== "MEDIA") return "SKIP"
  if (Number(file.size ?? 0) > maxBytes) return "SKIP"
  const id = encodeURIComponent(file.id!)
  let bytes: Uint8Array | null
  try {
    bytes = await client.bytes(subject, reading.kind === "EXPORT" ? `/drive/v3/files/${id}/export?mimeType=${encodeURIComponent(reading.mimeType)}` : `/drive/v3/files/${id}?alt=media&supportsAllDrives=true`, maxBytes)
  } catch (error) {
    // Drive exports at most 10 MB, and some files cannot be exported or downloaded (owner's restriction): skipped.
    if (error instanceof GoogleDriveError && error.status === 403 && ["exportSizeLimitExceeded", "cannotExportFile", "cannotDownloadFile"].includes(error.reason ?? "")) return "SKIP"
    throw error
  }
  if (bytes === null) return "SKIP"
  const name = file.name ?? file.id!
  return {
    externalId: fileExternalId(unit, file.id!),
    title: reading.kind === "EXPORT" ? name : name.replace(/\.[A-Za-z0-9]{1,8}$/, "") || name,
    bytes,
    fileName: reading.kind === "EXPORT" ? `${name}.${reading.extension}` : name,
    mediaType: reading.kind === "EXPORT" ? reading.mimeType : file.mimeType ?? "application/octet-stream",
    url: typeof file.webViewLink === "string" && /^https:\/\//.test(file.webViewLink) ? file.webViewLink : null,
    classification: "INTERNAL",
    acl
  }
}

const initial = (previous: CrawlCursor | null): CrawlCursor => ({
  active: true,
  units: [],
  unitIndex: -1,
  phase: "LIST",
  pageToken: null,
  pendingStart: null,
  startTokens: previous?.startTokens ?? {},
  groupsResolved: [],
  retiring: [],
  retireAfter: null
})

/** Drive's query parameters that scope a listing or the change feed to one unit. */
const scopeOf = (unit: DriveUnit) =>
  unit.kind === "shared"
    ? `driveId=${encodeURIComponent(unit.id)}&supportsAllDrives=true&includeItemsFromAllDrives=true`
    : "supportsAllDrives=true&includeItemsFromAllDrives=false"

/** One page of what changed in a unit (or of its full listing): files to read, external ids to retire, what follows. */
const readPage = async (client: GoogleDriveClient, config: GoogleDriveConfig, unit: DriveUnit, cursor: CrawlCursor) => {
  const subject = subjectOf(unit, config)
  if (cursor.phase === "LIST") {
    let pendingStart = cursor.pendingStart
    if (pendingStart === null) {
      // Taken before the listing: whatever changes while it runs is read from this token next time.
      const start = await client.json<drive_v3.Schema$StartPageToken>("drive", subject, `/drive/v3/changes/startPageToken?${scopeOf(unit)}`)
      pendingStart = start.startPageToken ?? null
    }
    const query = unit.kind === "shared" ? "trashed = false" : "'me' in owners and trashed = false"
    const path = `/drive/v3/files?corpora=${unit.kind === "shared" ? "drive" : "user"}&${scopeOf(unit)}&q=${encodeURIComponent(query)}&pageSize=${PAGE_SIZE}&fields=${encodeURIComponent(`nextPageToken,files(${FILE_FIELDS})`)}`
    const page = await client.json<drive_v3.Schema$FileList>("drive", subject, withPageToken(path, cursor.pageToken))
    return { files: page.files ?? [], deleted: [] as Array<string>, next: page.nextPageToken ?? null, newStart: page.nextPageToken ? null : pendingStart, pendingStart }
  }
  const path = `/drive/v3/changes?pageSize=${PAGE_SIZE}&${scopeOf(unit)}&fields=${encodeURIComponent(`nextPageToken,newStartPageToken,changes(changeType,removed,fileId,file(${FILE_FIELDS}))`)}`
  const page = await client.json<drive_v3.Schema$ChangeList>("drive", subject, `${path}&pageToken=${encodeURIComponent(cursor.pageToken ?? cursor.startTokens[unitKey(unit)]!)}`)
  const files: Array<drive_v3.Schema$File> = []
  const deleted: Array<string> = []
  for (const change of page.changes ?? []) {
    if (change.changeType && change.changeType !== "file") continue
    const fileId = change.fileId ?? change.file?.id
    if (!fileId) continue
    const file = change.file
    // Removed, trashed, moved out of this shared drive, or no longer the user's own: gone from this unit.
    const gone = change.removed || !file || file.trashed || (unit.kind === "shared" ? file.driveId !== unit.id : file.ownedByMe === false)
    if (gone) deleted.push(fileExternalId(unit, fileId))
    else files.push(file)
  }
  return { files, deleted, next: page.nextPageToken ?? null, newStart: page.nextPageToken ? null : page.newStartPageToken ?? null, pendingStart: null }
}

/**
 * The units a crawl read before (it holds their start page tokens) and no longer finds, whose documents are to be
 * retired: taken out of sourceConfig, or a shared drive gone. A chosen shared drive that could not be read this time
 * keeps its documents (and its token) until it can be.
 */
export const unitsToRetire = (startTokens: Readonly<Record<string, string>>, units: ReadonlyArray<DriveUnit>, unreadableDrives: ReadonlyArray<string>) => {
  const kept = new Set([...units.map(unitKey), ...unreadableDrives.map((id) => unitKey({ kind: "shared", id }))])
  return Object.keys(startTokens).filter((key) => !kept.has(key))
}

/**
 * One crawl step. The first resolves the units (shared drives, chosen users' My Drives); each next one reads one page
 * of a unit: its full listing the first time (after taking a start page token), then only its changes from the stored
 * token (`changes.list`), each file's permissions and bytes (Google formats exported), removals and trashings retired.
 * Units the connection no longer covers have their documents retired before any unit is read.
 * A revoked key or an unreachable Google stops the crawl (FAILED) where it is; nothing is retired.
 */
export const crawlGoogleDrive = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readGoogleDriveConfig(context.sourceConfig)
    const key = parseGoogleDriveCredential(context.credential)
    const previous = (checkpoint ?? null) as CrawlCursor | null
    const empty = { documents: [], groups: [], deleted: [] }
    if (!read.ok) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "INVALID_CONFIG", message: "The Google Drive configuration is invalid", fatal: true }] }
    if (!key) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No service-account key is set", fatal: true }] }
    const config = read.config
    const client = googleDriveClient(key, context.settings)
    const cursor = previous?.active ? previous : initial(previous)
    const finished = (state: CrawlCursor): CrawlCursor => ({ ...state, active: false, units: [], unitIndex: -1, phase: "LIST", pageToken: null, pendingStart: null, resyncSince: null, reconcileAfter: null, groupsResolved: [], retiring: [], retireAfter: null })
    const nextUnit = (state: CrawlCursor, startTokens = state.startTokens): CrawlCursor => {
      const index = state.unitIndex + 1
      const unit = state.units[index]
      return { ...state, unitIndex: index, pageToken: null, pendingStart: null, resyncSince: null, reconcileAfter: null, phase: unit && startTokens[unitKey(unit)] ? "CHANGES" : "LIST", startTokens }
    }

    if (cursor.unitIndex < 0) {
      try {
        const { units, failures } = await resolveUnits(client, config)
        const fatal = failures.map((f) => failureOf(f.error)).find((f) => f.fatal)
        if (fatal) return { ...empty, checkpoint: previous, done: true, failures: [fatal] }
        const retiring = unitsToRetire(cursor.startTokens, units, failures.map((f) => f.key))
        const gone = new Set(retiring)
        // A retired unit's start token goes with it: were it chosen again, it would be listed in full.
        const startTokens = Object.fromEntries(Object.entries(cursor.startTokens).filter(([key]) => !gone.has(key)))
        return {
          ...empty,
          checkpoint: { ...nextUnit({ ...cursor, units }, startTokens), retiring, retireAfter: null },
          done: false,
          failures: failures.map((f) => ({ ...failureOf(f.error), message: `shared drive ${f.key.slice(0, 120)}: ${failureOf(f.error).message}` }))
        }
      } catch (error) {
        return { ...empty, checkpoint: previous, done: true, failures: [{ ...failureOf(error), fatal: true }] }
      }
    }
    const [retiringUnit, ...stillRetiring] = cursor.retiring ?? []
    if (retiringUnit !== undefined) {
      // A unit the connection no longer covers: its documents, a page at a time (external ids sort by unit).
      const held = context.documents ? await pageUnder(context.documents.page, `${retiringUnit}/`, cursor.retireAfter, RECONCILE_PAGE) : { ids: [], next: null }
      const following = held.next ? { ...cursor, retireAfter: held.next } : { ...cursor, retiring: stillRetiring, retireAfter: null }
      const done = stillRetiring.length === 0 && !held.next && cursor.unitIndex >= cursor.units.length
      return { ...empty, deleted: held.ids, checkpoint: done ? finished(following) : following, done }
    }
    const unit = cursor.units[cursor.unitIndex]
    if (!unit) return { ...empty, checkpoint: finished(cursor), done: true }
    const subject = subjectOf(unit, config)

    if (cursor.phase === "RECONCILE") {
      // After a full listing of a unit whose token Drive refused: its documents not written since the listing began are gone.
      if (!context.documents || !cursor.resyncSince) return { ...empty, checkpoint: nextUnit(cursor), done: false }
      const { documents } = context
      const stale = await pageUnder((after, limit) => documents.notSeenSince(cursor.resyncSince!, after, limit), `${unitKey(unit)}/`, cursor.reconcileAfter, RECONCILE_PAGE)
      const following = stale.next ? { ...cursor, reconcileAfter: stale.next } : nextUnit(cursor)
      const done = following.unitIndex >= cursor.units.length
      return { ...empty, deleted: stale.ids, checkpoint: done ? finished(following) : following, done }
    }

    let page: Awaited<ReturnType<typeof readPage>>
    try {
      page = await readPage(client, config, unit, cursor)
    } catch (error) {
      const storedToken = cursor.phase === "CHANGES" && cursor.pageToken === null
      if (storedToken && error instanceof GoogleDriveError && [400, 404, 410].includes(error.status)) {
        // Drive no longer takes the stored start page token: list the unit in full again, then retire what it did not see.
        const { [unitKey(unit)]: _refused, ...startTokens } = cursor.startTokens
        return { ...empty, checkpoint: { ...cursor, phase: "LIST", pageToken: null, pendingStart: null, startTokens, resyncSince: new Date().toISOString(), reconcileAfter: null }, done: false }
      }
      const failure = failureOf(error)
      // A chosen user Google will not give a token for (unknown, suspended) fails that My Drive, not the crawl.
      const userRefused = unit.kind === "user" && error instanceof GoogleDriveError && error.code === "AUTHENTICATION_FAILED" && /refused a token/.test(error.message)
      if (failure.fatal && !userRefused) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
      return { ...empty, checkpoint: nextUnit(cursor), done: false, failures: [{ ...failure, fatal: false, message: `${unit.name.slice(0, 100)}: ${failure.message}` }] }
    }

    const documents: Array<SourceDocument> = []
    const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
    let skipped = 0
    const named = new Set<string>()
    const files = page.files.filter((file) => file.id && readingOf(file).kind !== "IGNORE")
    const outcomes = await inParallel(files, FILE_CONCURRENCY, async (file) => {
      if (readingOf(file).kind === "SKIP") return { file, skip: true as const }
      try {
        const acl = await aclOfFile(client, subject, file.id!)
        return { file, acl, document: await documentOf(client, subject, unit, file, acl, context.settings.maxUploadBytes) }
      } catch (error) {
        return { file, error }
      }
    })
    for (const outcome of outcomes) {
      if ("skip" in outcome) {
        skipped++
        continue
      }
      if ("error" in outcome) {
        const failure = failureOf(outcome.error)
        if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
        if (outcome.error instanceof GoogleDriveError && outcome.error.status === 404) continue
        failures.push({ ...failure, message: `${(outcome.file.name ?? outcome.file.id!).slice(0, 100)}: ${failure.message}` })
        continue
      }
      for (const group of outcome.acl.groups) named.add(group.id)
      for (const organization of outcome.acl.organizations ?? []) named.add(organization.id)
      if (outcome.document === "SKIP") skipped++
      else documents.push(outcome.document)
    }
    // The members of the groups and domains these documents name, read once per crawl, so they admit them at once.
    const resolved = new Set(cursor.groupsResolved ?? [])
    const groups: Array<SourceGroupMembership> = []
    try {
      const found = await membershipsOf(client, config.adminSubject, [...named], resolved, MAX_GROUPS_PER_CRAWL)
      groups.push(...found.memberships)
      failures.push(...found.failures)
    } catch (error) {
      return { ...empty, checkpoint: cursor, done: true, failures: [failureOf(error)] }
    }
    const progressed: CrawlCursor = { ...cursor, groupsResolved: [...resolved], pendingStart: page.pendingStart }
    if (page.next !== null && page.next === cursor.pageToken) {
      // A page token that does not advance would read the same page for ever: the unit stops here, recorded.
      failures.push({ code: "SOURCE_ERROR", message: `${unit.name.slice(0, 100)}: Drive repeated a page token` })
    }
    const startTokens = page.newStart ? { ...cursor.startTokens, [unitKey(unit)]: page.newStart } : cursor.startTokens
    const following: CrawlCursor = page.next && page.next !== cursor.pageToken
      ? { ...progressed, pageToken: page.next }
      : cursor.resyncSince && failures.length === 0
        ? { ...progressed, phase: "RECONCILE", pageToken: null, reconcileAfter: null, startTokens }
        : nextUnit(progressed, startTokens)
    const done = following.unitIndex >= cursor.units.length
    return { documents, groups, deleted: page.deleted, skipped, failures, checkpoint: done ? finished(following) : following, done }
  })
