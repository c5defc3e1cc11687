import { PgClient } from "@effect/sql-pg"
import { Deferred, Effect, Exit, Layer, Redacted } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { DatabaseNotifications, RequestCatchUp } from "../../src/db/Notifications"

/**
 * The listener's catch-up on PostgreSQL (db/Notifications.ts): once `caughtUp` answers, every notification committed
 * before it was asked for has been heard; within a request (RequestCatchUp), the first lookup's round trip serves the
 * request's later reads that follow no write of its own (`caughtUpInRequest`), and `caughtUp` still catches up anew. Embedded PGlite hears its own session's notifications before the commit's answer, so there
 * is no round trip to share there.
 */
const url = process.env.DATABASE_URL
const listener = Layer.provide(DatabaseNotifications.dedicatedConnection, PgClient.layer({ url: Redacted.make(url ?? "postgres://unused") }))

describe.skipIf(!url)("the listener's catch-up on PostgreSQL", () => {
  it("hears what was committed before it was asked; a request's first round trip serves its reads that may use it", async () => {
    const channel = `lore_test_catch_up_${process.pid}`
    const heard: Array<string> = []
    const notifier = new pg.Client({ connectionString: url })
    await notifier.connect()
    try {
      await Effect.runPromise(Effect.scoped(Effect.gen(function* () {
        const notifications = yield* DatabaseNotifications
        const ready = yield* Deferred.make<boolean>()
        yield* notifications.listen(channel, {
          onNotification: (payload) => void heard.push(payload),
          onListening: (now) => void Deferred.unsafeDone(ready, Exit.succeed(now))
        })
        const listening = yield* Deferred.await(ready).pipe(Effect.timeout("5 seconds"))
        expect(listening).toBe(true)

        // Outside a request, each lookup catches up itself.
        yield* Effect.promise(() => notifier.query(`SELECT pg_notify($1, 'first')`, [channel]))
        expect(yield* notifications.caughtUp).toBe(true)
        expect(heard).toContain("first")

        // Inside a request: the first lookup's round trip is kept, and serves the reads that may use it.
        const request = { trip: undefined as Promise<boolean> | undefined }
        const inRequest = <A>(effect: Effect.Effect<A>) => Effect.locally(effect, RequestCatchUp, request)
        yield* Effect.promise(() => notifier.query(`SELECT pg_notify($1, 'second')`, [channel]))
        expect(yield* inRequest(notifications.caughtUp)).toBe(true)
        expect(heard).toContain("second")
        const trip = request.trip
        expect(trip).toBeInstanceOf(Promise)
        expect(yield* inRequest(notifications.caughtUpInRequest)).toBe(true)
        expect(request.trip).toBe(trip)

        // A change the request makes itself is heard by the next `caughtUp`, which catches up anew.
        for (let i = 0; i < 100; i++) {
          yield* Effect.promise(() => notifier.query(`SELECT pg_notify($1, $2)`, [channel, `change ${i}`]))
          expect(yield* inRequest(notifications.caughtUp)).toBe(true)
          expect(heard).toContain(`change ${i}`)
        }
        expect(request.trip).toBe(trip)
      }).pipe(Effect.provide(listener))))
    } finally {
      await notifier.end()
    }
  })
})
