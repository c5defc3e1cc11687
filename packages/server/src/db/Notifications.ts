import { PgClient } from "@effect/sql-pg"
import { Context, Effect, FiberRef, Layer, Redacted, type Scope } from "effect"
import pg from "pg"

/** What a subscriber to a channel hears. Both callbacks run synchronously, on the connection's event. */
export interface NotificationHandlers {
  readonly onNotification: (payload: string) => void
  /**
   * `false` when the listener is lost (notifications may be missed from then on), `true` once it listens
   * again. A subscriber that must not miss one trusts nothing between the two.
   */
  readonly onListening: (listening: boolean) => void
}

/**
 * The first catch-up round trip of the request being served (set once per request, in http/ProblemJson.ts, before
 * any lookup). Sent after the request arrived, it covers every change committed before the request, so a later
 * read of the request that follows no write of its own may use it (`caughtUpInRequest`): a chat's reads of the AI
 * configuration, after the principal cache's lookup, where it sent a second round trip once the first was back.
 */
export const RequestCatchUp = FiberRef.unsafeMake<{ trip: Promise<boolean> | undefined } | undefined>(undefined)

export interface DatabaseNotificationsService {
  /** Listens on `channel` for the caller's scope. `onListening(true)` comes once LISTEN is in place. */
  readonly listen: (channel: string, handlers: NotificationHandlers) => Effect.Effect<void, never, Scope.Scope>
  /**
   * Whether every notification committed before this call has reached the handlers, waiting for that if
   * need be; false when it cannot be known (the listener is down or too slow).
   */
  readonly caughtUp: Effect.Effect<boolean>
  /**
   * `caughtUp` as of the request's start: its first round trip when it made one (see RequestCatchUp). Only for
   * reads that follow no write of the request to what they read: a request that changed something and reads it
   * back must catch up anew to hear its own change.
   */
  readonly caughtUpInRequest: Effect.Effect<boolean>
}

/**
 * Notifications raised in the database (`pg_notify` from statements and triggers), as this process hears them.
 *
 * - embedded (PGlite): the server runs one backend session, shared by the one pool connection. LISTEN on it
 *   makes PGlite send the session's own notifications on that connection, before the committing statement's
 *   answer: a change is heard before its writer even gets the reply, so `caughtUp` need not wait. (PGlite's
 *   own `listen` does not see statements that arrive through the socket server.)
 * - PostgreSQL: a dedicated connection per process (keep-alive, checked every few seconds, reconnected with
 *   back-off). `PgClient.listen` is not used because it swallows the connection's errors: a dropped
 *   listener would go unnoticed. Notifications reach other sessions asynchronously, after the commit's
 *   answer, so a request that follows a change (made by this process or another) could come first:
 *   `caughtUp` closes that gap with a round trip on the listening connection. PostgreSQL signals the
 *   listening backends before it answers the commit, and a backend sends its pending notifications before
 *   it answers a query, so once an (empty) query sent after the request arrived comes back, every change
 *   committed before the request has been heard. One round trip serves every request that arrived before
 *   it was sent.
 */
export class DatabaseNotifications extends Context.Tag("lore/DatabaseNotifications")<DatabaseNotifications, DatabaseNotificationsService>() {
  /** Embedded: LISTEN on the pool's own connections (the pool holds one). */
  static readonly onPoolConnections = (pool: pg.Pool) =>
    Layer.scoped(DatabaseNotifications, Effect.acquireRelease(Effect.sync(() => new PoolListener(pool)), (listener) => Effect.sync(() => listener.close())))

  /**
   * No notifications at all (tools that open their own connections, such as the benchmarks): every subscriber
   * is told it is not listening, so caches that depend on announcements read the database each time.
   */
  static readonly none = Layer.succeed(DatabaseNotifications, {
    listen: (_channel: string, handlers: NotificationHandlers) => Effect.sync(() => handlers.onListening(false)),
    caughtUp: Effect.succeed(false),
    caughtUpInRequest: Effect.succeed(false)
  })

  /** PostgreSQL: a connection of its own, with the pool's connection settings. */
  static readonly dedicatedConnection = Layer.scoped(
    DatabaseNotifications,
    Effect.gen(function* () {
      const { config } = yield* PgClient.PgClient
      const options: pg.ClientConfig = {
        ...(config.url ? { connectionString: Redacted.value(config.url) } : {}),
        ...(config.host ? { host: config.host } : {}),
        ...(config.port ? { port: config.port } : {}),
        ...(config.database ? { database: config.database } : {}),
        ...(config.username ? { user: config.username } : {}),
        ...(config.password ? { password: Redacted.value(config.password) } : {}),
        ...(config.ssl !== undefined ? { ssl: config.ssl } : {}),
        application_name: "lore-listener",
        keepAlive: true
      }
      return yield* Effect.acquireRelease(Effect.sync(() => new DedicatedListener(options)), (listener) => Effect.promise(() => listener.close()))
    })
  )
}

type Registry = Map<string, Set<NotificationHandlers>>

const listenSql = (channel: string) => `LISTEN ${pg.escapeIdentifier(channel)}`

const register = (registry: Registry, channel: string, handlers: NotificationHandlers) => {
  const set = registry.get(channel) ?? new Set()
  registry.set(channel, set.add(handlers))
  return () => {
    set.delete(handlers)
  }
}

const dispatch = (registry: Registry) => (message: pg.Notification) => {
  for (const handlers of registry.get(message.channel) ?? []) handlers.onNotification(message.payload ?? "")
}

const everyone = (registry: Registry, listening: boolean) => {
  for (const set of registry.values()) for (const handlers of set) handlers.onListening(listening)
}

/** Embedded: every connection the pool opens LISTENs on the registered channels. */
class PoolListener implements DatabaseNotificationsService {
  readonly caughtUp = Effect.succeed(true)
  readonly caughtUpInRequest = this.caughtUp
  private readonly registry: Registry = new Map()
  private readonly onNotification = dispatch(this.registry)
  private closed = false

  constructor(private readonly pool: pg.Pool) {
    pool.on("connect", this.onConnect)
  }

  private readonly onConnect = (client: pg.PoolClient) => {
    client.on("notification", this.onNotification)
    const lost = () => everyone(this.registry, false)
    client.once("end", lost)
    client.on("error", lost)
    // A new connection after a lost one: LISTEN again (through the pool, which runs one query at a time).
    const channels = [...this.registry.keys()]
    if (channels.length === 0) return
    Promise.all(channels.map((channel) => this.pool.query(listenSql(channel)))).then(
      () => everyone(this.registry, !this.closed),
      lost
    )
  }

  listen(channel: string, handlers: NotificationHandlers) {
    return Effect.acquireRelease(
      Effect.sync(() => register(this.registry, channel, handlers)),
      (unregister) => Effect.sync(unregister)
    ).pipe(
      Effect.zipLeft(
        Effect.tryPromise(() => this.pool.query(listenSql(channel))).pipe(
          Effect.match({
            onFailure: () => handlers.onListening(false),
            onSuccess: () => handlers.onListening(!this.closed)
          })
        )
      ),
      Effect.asVoid
    )
  }

  close() {
    this.closed = true
    this.pool.off("connect", this.onConnect)
    everyone(this.registry, false)
  }
}

/** How often the dedicated connection proves it is alive, and how long it may take to. */
const CHECK_EVERY_MS = 5_000
const CHECK_TIMEOUT_MS = 3_000
const RETRY_MIN_MS = 200
const RETRY_MAX_MS = 5_000
/** A catch-up round trip slower than this answers false (the caller then does without what it would have trusted). */
const CATCH_UP_TIMEOUT_MS = 1_000

/** PostgreSQL: one connection that LISTENs, reconnecting when it breaks or stops answering. */
class DedicatedListener implements DatabaseNotificationsService {
  private readonly registry: Registry = new Map()
  private readonly onNotification = dispatch(this.registry)
  private client: pg.Client | undefined
  private listening = false
  private closed = false
  private retryMs = RETRY_MIN_MS
  private timer: NodeJS.Timeout | undefined
  /** The channels the current connection LISTENs on. */
  private heard = new Set<string>()
  /** The catch-up round trip sent (or about to be), and the one queued behind it (not sent before `sent` ends). */
  private sent: Promise<boolean> | undefined
  private queued: Promise<boolean> | undefined
  /** The connection's queries, one after the other (pg 9 will refuse a query while one runs). */
  private tail: Promise<unknown> = Promise.resolve()

  constructor(private readonly options: pg.ClientConfig) {
    void this.connect()
  }

  private async connect() {
    if (this.closed) return
    const client = new pg.Client(this.options)
    this.client = client
    this.heard = new Set()
    this.tail = Promise.resolve()
    client.on("notification", this.onNotification)
    client.on("error", () => this.lose(client))
    client.once("end", () => this.lose(client))
    try {
      await client.connect()
      // Channels registered while this runs are picked up too.
      for (let missing = this.unheard(); missing.length > 0; missing = this.unheard()) {
        for (const channel of missing) {
          await this.enqueue(client, listenSql(channel))
          this.heard.add(channel)
        }
      }
    } catch {
      return this.lose(client)
    }
    if (this.client !== client) return
    this.listening = true
    this.retryMs = RETRY_MIN_MS
    everyone(this.registry, true)
    this.schedule(() => this.check(client), CHECK_EVERY_MS)
  }

  private unheard() {
    return [...this.registry.keys()].filter((channel) => !this.heard.has(channel))
  }

  /** A round trip on the listening connection: if it answers, its notifications arrive too. */
  private async check(client: pg.Client) {
    const late = setTimeout(() => this.lose(client), CHECK_TIMEOUT_MS)
    try {
      await this.enqueue(client, "SELECT 1")
    } catch {
      return this.lose(client)
    } finally {
      clearTimeout(late)
    }
    if (this.client === client) this.schedule(() => this.check(client), CHECK_EVERY_MS)
  }

  readonly caughtUp = Effect.flatMap(FiberRef.get(RequestCatchUp), (request) =>
    Effect.promise(() => {
      const trip = this.catchUp()
      if (request !== undefined) request.trip ??= trip
      return trip
    }))

  readonly caughtUpInRequest = Effect.flatMap(FiberRef.get(RequestCatchUp), (request) =>
    Effect.promise(() => (request === undefined ? this.catchUp() : (request.trip ??= this.catchUp()))))

  private catchUp(): Promise<boolean> {
    const client = this.client
    if (client === undefined || !this.listening) return Promise.resolve(false)
    // `sent` may have left before the caller arrived; `queued` leaves only once `sent` is back, so after.
    if (this.sent === undefined) return (this.sent = this.roundTrip(client))
    return (this.queued ??= this.roundTrip(client))
  }

  /** Runs `statement` once the connection's earlier queries are done. */
  private enqueue(client: pg.Client, statement: string): Promise<unknown> {
    const query = this.tail.then(() => client.query(statement))
    this.tail = query.catch(() => undefined)
    return query
  }

  /** Queued behind the connection's earlier queries: a round trip queued while `sent` runs leaves after it. */
  private roundTrip(client: pg.Client): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const trip: Promise<boolean> = Promise.race([
      // The empty statement: the cheapest round trip (no row to describe or parse).
      this.enqueue(client, "").then(() => this.client === client && this.listening, () => false),
      new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), CATCH_UP_TIMEOUT_MS)
      })
    ]).finally(() => {
      clearTimeout(timer)
      if (this.sent === trip) {
        this.sent = this.queued
        this.queued = undefined
      }
    })
    return trip
  }

  /** Once per connection: tell the subscribers, drop the connection, try again after a back-off. */
  private lose(client: pg.Client) {
    if (this.client !== client) return
    this.client = undefined
    this.sent = this.queued = undefined
    clearTimeout(this.timer)
    if (this.listening) {
      this.listening = false
      everyone(this.registry, false)
    }
    client.removeAllListeners("notification")
    client.end().catch(() => undefined)
    if (this.closed) return
    this.schedule(() => void this.connect(), this.retryMs)
    this.retryMs = Math.min(RETRY_MAX_MS, this.retryMs * 2)
  }

  private schedule(run: () => void, ms: number) {
    clearTimeout(this.timer)
    this.timer = setTimeout(run, ms)
    this.timer.unref()
  }

  listen(channel: string, handlers: NotificationHandlers) {
    return Effect.acquireRelease(
      Effect.sync(() => register(this.registry, channel, handlers)),
      (unregister) => Effect.sync(unregister)
    ).pipe(
      Effect.zipLeft(
        Effect.suspend(() => {
          const client = this.client
          // Not connected yet: connect() LISTENs on every registered channel and then tells everyone.
          if (!client || !this.listening) return Effect.void
          return Effect.tryPromise(() => this.enqueue(client, listenSql(channel))).pipe(
            Effect.match({
              onFailure: () => this.lose(client),
              onSuccess: () => {
                if (this.client !== client) return
                this.heard.add(channel)
                handlers.onListening(this.listening)
              }
            })
          )
        })
      ),
      Effect.asVoid
    )
  }

  async close() {
    this.closed = true
    clearTimeout(this.timer)
    const client = this.client
    this.client = undefined
    if (this.listening) {
      this.listening = false
      everyone(this.registry, false)
    }
    if (client) await client.end().catch(() => undefined)
  }
}
