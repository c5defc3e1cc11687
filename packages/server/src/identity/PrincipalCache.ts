import { Context, Effect, Layer } from "effect"
import { DatabaseNotifications } from "../db/Notifications"
import type { PrincipalRow } from "./Repo"

/** The channel the database announces principal changes on (migration 0007_principal_signals). */
export const PRINCIPAL_CHANNEL = "lore_principals"
/** Announced when every principal may have changed. */
const EVERYONE = "*"
const MAX_ENTRIES = 10_000

/**
 * The principals of recently used credentials, keyed by the credential's hash, so that a request whose
 * credential was seen before needs no SQL. Correct only because every change is heard before it can
 * matter: triggers announce each change to a token, session, user, platform role, department or
 * organization (its authorization generation) at commit, and the entries of that user (or all) go.
 *
 * - Nothing is trusted while the listener is not listening: lookups miss, nothing is stored, and what
 *   was stored is dropped when it stops (notifications may have been missed).
 * - A lookup that raced a change is not stored: every announcement bumps `version`, and a row read
 *   before it (`since`) is discarded.
 * - A cached principal serves a request only once every change committed before the request began has
 *   been heard (`DatabaseNotifications.caughtUp`: immediate on embedded PGlite, one shared round trip on
 *   the listening connection on PostgreSQL), so a change made through any server shows on the next request
 *   to every server.
 * - An entry is dropped when its credential expires.
 *
 * Only identity is cached here. Decisions (permissions, the access evaluator) are computed from it on
 * each request, and any change to the authorization generation empties the cache, so none outlives one.
 */
export class CredentialCache {
  private readonly entries = new Map<string, { readonly row: PrincipalRow; readonly expiresAt: number }>()
  private readonly keysOfUser = new Map<string, Set<string>>()
  private version = 0
  private listening = false

  /** Whether there is anything to look up for `key` (without deciding whether it may be used). */
  holds(key: string): boolean {
    return this.listening && this.entries.has(key)
  }

  /** The principal cached for `key`, if it may be used now. */
  get(key: string, now: number): PrincipalRow | undefined {
    if (!this.listening) return undefined
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    if (entry.expiresAt <= now) {
      this.entries.delete(key)
      return undefined
    }
    return entry.row
  }

  /** Taken before reading a principal from the database; `put` stores the row only if nothing changed since. */
  stamp(): number {
    return this.version
  }

  put(key: string, row: PrincipalRow, since: number): void {
    if (!this.listening || since !== this.version) return
    if (this.entries.size >= MAX_ENTRIES) this.forgetAll()
    this.entries.set(key, { row, expiresAt: row.credentialExpiresAt?.getTime() ?? Infinity })
    const keys = this.keysOfUser.get(row.userId) ?? new Set()
    this.keysOfUser.set(row.userId, keys.add(key))
  }

  /** An announcement: a user's id, or everyone. */
  changed(payload: string): void {
    this.version++
    if (payload === EVERYONE) return this.clear()
    for (const key of this.keysOfUser.get(payload) ?? []) this.entries.delete(key)
    this.keysOfUser.delete(payload)
  }

  setListening(listening: boolean): void {
    this.version++
    this.listening = listening
    this.clear()
  }

  forgetAll(): void {
    this.version++
    this.clear()
  }

  get size(): number {
    return this.entries.size
  }

  private clear() {
    this.entries.clear()
    this.keysOfUser.clear()
  }
}

export interface PrincipalCacheService {
  /** The principal cached for the credential `key`, if it may serve a request that starts now. */
  readonly lookup: (key: string) => Effect.Effect<PrincipalRow | undefined>
  /** Taken before reading a principal from the database, for `remember`. */
  readonly stamp: () => number
  /** Caches a principal read from the database, unless a change was announced since `since`. */
  readonly remember: (key: string, row: PrincipalRow, since: number) => void
}

const nothing = Effect.succeed(undefined)

/** The process's credential cache, fed by the database's announcements for as long as the server runs. */
export class PrincipalCache extends Context.Tag("lore/PrincipalCache")<PrincipalCache, PrincipalCacheService>() {
  static readonly Live = Layer.scoped(
    PrincipalCache,
    Effect.gen(function* () {
      const notifications = yield* DatabaseNotifications
      const cache = new CredentialCache()
      yield* notifications.listen(PRINCIPAL_CHANNEL, {
        onNotification: (payload) => cache.changed(payload),
        onListening: (listening) => cache.setListening(listening)
      })
      // Read the entry only after catching up: catching up may be what removes it.
      const current = (key: string) => (caughtUp: boolean) => (caughtUp ? cache.get(key, Date.now()) : undefined)
      return PrincipalCache.of({
        lookup: (key) => (cache.holds(key) ? Effect.map(notifications.caughtUp, current(key)) : nothing),
        stamp: () => cache.stamp(),
        remember: (key, row, since) => cache.put(key, row, since)
      })
    })
  )
}
