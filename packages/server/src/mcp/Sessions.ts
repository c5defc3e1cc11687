import type { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import { Effect, Logger, LogLevel, Runtime, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { DatabaseNotifications } from "../db/Notifications"
import type { Principal } from "../domain/Principal"
import { PRINCIPAL_CHANNEL } from "../identity/PrincipalCache"
import { makeMcpServerFactory } from "./Server"

/** Announced by the trigger of migration 0018 when a release is made, withdrawn or removed. */
export const ASSET_RELEASE_CHANNEL = "lore_asset_releases"
const IDLE_MS = 30 * 60_000
const MAX_SESSIONS = 1_000
const MAX_SESSIONS_PER_USER = 20
const SETTLE_MS = 100

export interface Session {
  readonly id: string
  readonly userId: string
  readonly server: Server
  readonly transport: WebStandardStreamableHTTPServerTransport
  /** The caller of the session's latest request (for the prompt-list check only; every request is authenticated anew). */
  caller: Principal
  lastSeen: number
  /** Open GET streams: a session listening for notifications is not idle. */
  streams: number
  /** The prompt list last seen for the caller, to tell them when it changes. */
  prompts: string | undefined
}

/**
 * MCP sessions of this process (Streamable HTTP with Mcp-Session-Id). A session is its SDK server and transport,
 * bound to the user who opened it; it ends on DELETE, after 30 minutes without a request or an open stream, or
 * when its user holds too many. Prompts follow releases: when one is made or withdrawn anywhere (the database
 * announces it, so every process hears it) or when grants and principals change, each session's prompt list is
 * computed again for its user, and a session whose list changed gets notifications/prompts/list_changed on its
 * GET stream.
 */
export const makeSessions = Effect.gen(function* () {
  const factory = yield* makeMcpServerFactory
  const notifications = yield* DatabaseNotifications
  const runtime = yield* Effect.runtime<never>()
  const sessions = new Map<string, Session>()

  const close = (session: Session) => {
    sessions.delete(session.id)
    void session.server.close().catch(() => undefined)
  }

  const fingerprint = (session: Session) =>
    factory.promptsFingerprint(session.caller).pipe(
      // A background check, not a request: the services' per-call info lines would only be noise.
      Logger.withMinimumLogLevel(LogLevel.Warning),
      Effect.catchAllCause((cause) => Effect.as(Effect.logDebug("MCP prompt list check failed", cause), session.prompts))
    )

  /** Each session's prompt list again; the ones that changed are notified. */
  const check = Effect.suspend(() => Effect.forEach([...sessions.values()], (session) =>
    Effect.flatMap(fingerprint(session), (current) =>
      Effect.sync(() => {
        const before = session.prompts
        session.prompts = current
        if (before !== undefined && current !== before && sessions.has(session.id)) void session.server.sendPromptListChanged()
      })), { concurrency: 1, discard: true }))

  let scheduled = false
  let again = false
  const changed = () => {
    if (scheduled) {
      again = true
      return
    }
    scheduled = true
    Runtime.runFork(runtime)(
      Effect.sleep(SETTLE_MS).pipe(
        Effect.zipRight(check),
        Effect.repeat({ while: () => {
          const more = again
          again = false
          return more
        } }),
        Effect.ensuring(Effect.sync(() => (scheduled = false)))
      )
    )
  }
  for (const channel of [ASSET_RELEASE_CHANNEL, PRINCIPAL_CHANNEL]) {
    yield* notifications.listen(channel, { onNotification: changed, onListening: (listening) => (listening ? changed() : undefined) })
  }

  const sweep = Effect.sync(() => {
    const now = Date.now()
    for (const session of sessions.values()) if (session.streams === 0 && now - session.lastSeen > IDLE_MS) close(session)
  })
  yield* Effect.forkScoped(Effect.repeat(sweep, Schedule.spaced("1 minute")))
  yield* Effect.addFinalizer(() => Effect.sync(() => [...sessions.values()].forEach(close)))

  /** Makes room for a new session of `userId`: the least recently used of theirs, or of anyone's, goes first. */
  const makeRoom = (userId: string) => {
    const byAge = [...sessions.values()].sort((a, b) => a.lastSeen - b.lastSeen)
    const theirs = byAge.filter((s) => s.userId === userId)
    if (theirs.length >= MAX_SESSIONS_PER_USER) close(theirs[0]!)
    if (sessions.size >= MAX_SESSIONS) close(byAge.find((s) => sessions.has(s.id))!)
  }

  /** A server and transport for an initialize request; the session exists once the transport assigns its id. */
  const open = (caller: Principal) => {
    const server = factory.make()
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        makeRoom(caller.userId)
        const session: Session = { id, userId: caller.userId, server, transport, caller, lastSeen: Date.now(), streams: 0, prompts: undefined }
        sessions.set(id, session)
        Runtime.runFork(runtime)(Effect.flatMap(fingerprint(session), (prompts) => Effect.sync(() => (session.prompts ??= prompts))))
      },
      onsessionclosed: (id) => {
        const session = sessions.get(id)
        if (session) close(session)
      }
    })
    return { server, transport }
  }

  /** The session with this id, when it belongs to the caller (another user's id is as unknown as a made-up one). */
  const find = (id: string, caller: Principal) => {
    const session = sessions.get(id)
    if (!session || session.userId !== caller.userId) return undefined
    session.caller = caller
    session.lastSeen = Date.now()
    return session
  }

  return { open, find, factory, size: () => sessions.size }
})
