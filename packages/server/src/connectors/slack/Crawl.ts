import type { ConversationsHistoryResponse, ConversationsRepliesResponse } from "@slack/web-api"
import { Effect } from "effect"
import type { CrawlPage, KindContext, SourceDocument, SourceGroupMembership } from "../Kind"
import { inParallel } from "../VendorHttp"
import { failureOf, SlackError, type SlackClient, slackClient } from "./Client"
import { parseSlackCredential, readSlackConfig } from "./Config"
import { aclOfChannel, type ChannelRef, channelGroup, channelInfo, channelMembers, type Directory } from "./Directory"
import { startsThread, threadDocument } from "./Render"
import type { MessageElement } from "./Types"
import { directoryOfRun, resolveChannelNames, type Workspace, workspaceOf } from "./Workspace"

/**
 * Where a crawl is. Between crawls only `newest` matters: per channel, the newest message read, from which the next
 * crawl reads forward (`oldest`), `rescanDays` before it so edits, deletions and new replies there are seen again.
 */
export interface CrawlCursor {
  readonly active: boolean
  readonly startedAt: string | null
  readonly phase: "START" | "HISTORY" | "SWEEP" | "RETIRE"
  readonly workspace: Workspace | null
  readonly channels: ReadonlyArray<string>
  readonly index: number
  /** The channel being read, once its pass began (its members yielded as its group). */
  readonly channel: ChannelRef | null
  /** Slack's cursor into the channel's conversations.history. */
  readonly next: string | null
  /** The pass's window start (a ts); null: the whole history (a channel read for the first time). */
  readonly oldest: string | null
  readonly passNewest: string | null
  /** Threads (parent ts) seen in the window: those Lore holds there and did not see again were deleted. */
  readonly seen: ReadonlyArray<string>
  /** Where SWEEP or RETIRE is in the external ids Lore holds. */
  readonly after: string | null
  /** Channels this crawl could not read (deleted, or the app removed): their threads are retired. */
  readonly lost: ReadonlyArray<string>
  readonly newest: Readonly<Record<string, string>>
}

const HISTORY_PAGE = 200
const REPLIES_PAGE = 200
const MAX_REPLY_PAGES = 25
const KNOWN_PAGE = 500
/** Threads whose replies are read at once (conversations.replies is Tier 3: bursts are fine until Slack says 429). */
const REPLIES_CONCURRENCY = 4

const fresh = (newest: Readonly<Record<string, string>>): CrawlCursor => ({
  active: true, startedAt: new Date().toISOString(), phase: "START", workspace: null, channels: [], index: 0, channel: null,
  next: null, oldest: null, passNewest: null, seen: [], after: null, lost: [], newest
})

/** A ts some days earlier (Slack's ts are seconds with a fraction); never before 0. */
export const daysBefore = (ts: string, days: number) => (Math.max(0, Math.floor(Number(ts)) - days * 86_400)).toFixed(6)

const laterTs = (a: string | null | undefined, b: string | null | undefined) => (!a ? b ?? null : !b ? a : Number(b) > Number(a) ? b : a)

/** A thread's messages, parent first (conversations.replies, every page, deduplicated: Slack repeats the parent). */
export const threadMessages = async (client: SlackClient, channelId: string, ts: string): Promise<ReadonlyArray<MessageElement>> => {
  const byTs = new Map<string, MessageElement>()
  let cursor: string | undefined
  for (let pages = 0; pages < MAX_REPLY_PAGES; pages++) {
    const page: ConversationsRepliesResponse = await client.call("conversations.replies", (web) =>
      web.conversations.replies({ channel: channelId, ts, limit: REPLIES_PAGE, ...(cursor ? { cursor } : {}) }))
    for (const message of page.messages ?? []) if (message.ts && !byTs.has(message.ts)) byTs.set(message.ts, message as MessageElement)
    cursor = page.response_metadata?.next_cursor || undefined
    if (!cursor || !page.has_more) break
  }
  return [...byTs.values()].sort((a, b) => Number(a.ts) - Number(b.ts) || (a.ts === ts ? -1 : b.ts === ts ? 1 : 0))
}

const channelGone = (error: unknown) => error instanceof SlackError && (error.status === 404 || error.slackError === "not_in_channel")

/** The threads of one page of a channel's history, each read with its replies; a thread gone meanwhile is left out. */
const threadsOfPage = async (client: SlackClient, cursor: CrawlCursor, channel: ChannelRef, messages: ReadonlyArray<MessageElement>, directory: Directory) => {
  const acl = aclOfChannel(channel, cursor.workspace!.teamId)
  const documents = await inParallel(messages.filter(startsThread), REPLIES_CONCURRENCY, async (message): Promise<SourceDocument | null> => {
    let thread: ReadonlyArray<MessageElement> = [message]
    if ((message.reply_count ?? 0) > 0) {
      try {
        thread = await threadMessages(client, channel.id, message.ts!)
      } catch (error) {
        if (error instanceof SlackError && error.slackError === "thread_not_found") return null
        throw error
      }
      if (thread.length === 0 || thread[0]!.ts !== message.ts) thread = [message, ...thread.filter((m) => m.ts !== message.ts)]
    }
    return threadDocument(cursor.workspace!, channel, thread, directory, acl)
  })
  return documents.filter((document): document is SourceDocument => document !== null)
}

const nextChannel = (cursor: CrawlCursor, newest: Readonly<Record<string, string>>): CrawlCursor => {
  const index = cursor.index + 1
  return {
    ...cursor, newest, index, channel: null, next: null, oldest: null, passNewest: null, seen: [], after: null,
    phase: index >= cursor.channels.length ? "RETIRE" : "HISTORY"
  }
}

/** One page of a channel's history; the channel's pass begins with its info and members (its group). */
const historyStep = async (context: KindContext, client: SlackClient, cursor: CrawlCursor, rescanDays: number, directory: Directory): Promise<CrawlPage> => {
  const id = cursor.channels[cursor.index]!
  const groups: Array<SourceGroupMembership> = []
  let current = cursor
  if (!current.channel) {
    let channel: ChannelRef
    try {
      channel = await channelInfo(client, id)
    } catch (error) {
      if (!channelGone(error)) throw error
      return lostChannel(cursor, id, "Slack no longer shows this channel to the app")
    }
    if (!channel.isMember) return lostChannel(cursor, id, `the app is not in #${channel.name}: invite it (/invite @app) so Lore can read the channel`)
    groups.push(channelGroup(channel, await channelMembers(client, id), directory))
    const known = cursor.newest[id]
    current = { ...current, channel, next: null, oldest: known ? daysBefore(known, rescanDays) : null, passNewest: null, seen: [] }
  }
  const channel = current.channel!
  let page: ConversationsHistoryResponse
  try {
    page = await client.call("conversations.history", (web) => web.conversations.history({
      channel: id, limit: HISTORY_PAGE, ...(current.oldest ? { oldest: current.oldest, inclusive: true } : {}), ...(current.next ? { cursor: current.next } : {})
    }))
  } catch (error) {
    if (!channelGone(error)) throw error
    return lostChannel(cursor, id, "Slack no longer lets the app read this channel")
  }
  const messages = page.messages ?? []
  const documents = await threadsOfPage(client, current, channel, messages, directory)
  const passNewest = messages.reduce<string | null>((newest, message) => laterTs(newest, message.ts), current.passNewest)
  const seen = current.oldest === null ? [] : [...current.seen, ...documents.map((document) => document.externalId.slice(id.length + 1))]
  const next = page.has_more !== false ? page.response_metadata?.next_cursor || null : null
  if (next) return { documents, groups, deleted: [], checkpoint: { ...current, next, passNewest, seen }, done: false }
  const newest = { ...current.newest, ...(laterTs(current.newest[id], passNewest) ? { [id]: laterTs(current.newest[id], passNewest)! } : {}) }
  // A window read again: what Lore holds in it and did not see is swept; a first read has nothing to sweep.
  const checkpoint: CrawlCursor = current.oldest !== null
    ? { ...current, newest, next: null, passNewest, seen, phase: "SWEEP", after: `${id}/${current.oldest}` }
    : nextChannel(current, newest)
  return { documents, groups, deleted: [], checkpoint, done: false }
}

/** A channel Lore cannot read any more: recorded, its threads retired (RETIRE), read in full if it comes back. */
const lostChannel = (cursor: CrawlCursor, id: string, message: string): CrawlPage => {
  const { [id]: _dropped, ...newest } = cursor.newest
  return {
    documents: [], groups: [], deleted: [],
    failures: [{ code: "CHANNEL_UNREADABLE", message: `${id}: ${message}` }],
    checkpoint: nextChannel({ ...cursor, lost: [...cursor.lost, id] }, newest),
    done: false
  }
}

/** The threads Lore holds in the window just read and did not see again: deleted at the source. */
const sweepStep = async (context: KindContext, cursor: CrawlCursor): Promise<CrawlPage> => {
  const id = cursor.channels[cursor.index]!
  const prefix = `${id}/`
  const ids = context.documents ? await Effect.runPromise(context.documents.page(cursor.after, KNOWN_PAGE)) : []
  const mine = ids.filter((externalId) => externalId.startsWith(prefix))
  const seen = new Set(cursor.seen)
  const deleted = mine.filter((externalId) => !seen.has(externalId.slice(prefix.length)))
  if (mine.length === KNOWN_PAGE) return { documents: [], groups: [], deleted, checkpoint: { ...cursor, after: mine.at(-1)! }, done: false }
  return { documents: [], groups: [], deleted, checkpoint: nextChannel(cursor, cursor.newest), done: false }
}

/**
 * Threads of channels no longer configured, or lost this crawl, are retired: the external ids Lore holds are walked
 * channel by channel, skipping each kept channel's range at once (`C123/…` sorts before `C1230`).
 */
const retireStep = async (context: KindContext, cursor: CrawlCursor): Promise<CrawlPage> => {
  const done = (deleted: ReadonlyArray<string>): CrawlPage => ({
    documents: [], groups: [], deleted, checkpoint: { ...fresh(cursor.newest), active: false, phase: "START", startedAt: cursor.startedAt }, done: true
  })
  if (!context.documents) return done([])
  const lost = new Set(cursor.lost)
  const kept = new Set(cursor.channels.filter((id) => !lost.has(id)))
  let after = cursor.after
  const deleted: Array<string> = []
  for (let probes = 0; probes < 100 && deleted.length < KNOWN_PAGE; probes++) {
    const [first] = await Effect.runPromise(context.documents.page(after, 1))
    if (first === undefined) return done(deleted)
    const channel = first.slice(0, Math.max(0, first.indexOf("/")))
    if (kept.has(channel)) {
      after = `${channel}0`
      continue
    }
    const ids = await Effect.runPromise(context.documents.page(after, KNOWN_PAGE))
    const gone = ids.filter((externalId) => externalId.startsWith(`${channel}/`))
    deleted.push(...gone)
    after = gone.length > 0 ? gone.at(-1)! : `${channel}0`
  }
  return { documents: [], groups: [], deleted, checkpoint: { ...cursor, after }, done: false }
}

/**
 * One crawl step: the directory (users.list: the organization-wide principal) first, then channel by channel its
 * group and its history page by page, each thread read with its replies, then the sweep of the window read again, and
 * at the end the retirement of channels no longer chosen or readable. A failure that stops the step keeps the cursor,
 * and the next crawl resumes from it; nothing already indexed is lost.
 */
export const crawlSlack = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readSlackConfig(context.sourceConfig)
    const credential = parseSlackCredential(context.credential)
    const previous = checkpoint as CrawlCursor | null
    let cursor = previous?.active ? previous : fresh(previous?.newest ?? {})
    const stop = (failure: { code: string; message: string; fatal?: boolean }): CrawlPage =>
      ({ documents: [], groups: [], deleted: [], checkpoint: cursor, done: true, failures: [failure] })
    if (!read.ok) return stop({ code: "INVALID_CONFIG", message: "The Slack configuration is invalid", fatal: true })
    if (!credential) return stop({ code: "CREDENTIAL_MISSING", message: "No Slack credential is set", fatal: true })
    const client = slackClient(credential, context.settings)
    try {
      if (cursor.phase === "START" || !cursor.workspace) {
        const workspace = await workspaceOf(client)
        const resolved = await resolveChannelNames(client, read.config.channels)
        if ("errors" in resolved) return stop({ code: "INVALID_CONFIG", message: resolved.errors.map((e) => `${e.path} ${e.message}`).join("; ").slice(0, 500), fatal: true })
        cursor = { ...cursor, workspace, channels: resolved.channels, index: 0, phase: resolved.channels.length > 0 ? "HISTORY" : "RETIRE" }
        const directory = await directoryOfRun(client, credential.token, workspace.teamId, cursor.startedAt!)
        return { documents: [], groups: [directory.organization], deleted: [], checkpoint: cursor, done: false }
      }
      if (cursor.phase === "HISTORY") {
        const directory = await directoryOfRun(client, credential.token, cursor.workspace.teamId, cursor.startedAt!)
        return await historyStep(context, client, cursor, read.config.rescanDays, directory)
      }
      if (cursor.phase === "SWEEP") return await sweepStep(context, cursor)
      return await retireStep(context, cursor)
    } catch (error) {
      return stop(failureOf(error))
    }
  })
