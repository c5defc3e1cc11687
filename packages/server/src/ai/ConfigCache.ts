import { SqlClient } from "@effect/sql"
import { Effect, FiberRef, Option } from "effect"
import { DatabaseNotifications } from "../db/Notifications"
import { type AssistantModelRow, type GatewayRow, GatewaysRepo, type RouteRow } from "./GatewaysRepo"

/** The channel the database announces AI configuration changes on (migration 0031_ai_config_signals). */
export const AI_CONFIG_CHANNEL = "lore_ai_config"
/** Announced when every organization's configuration may have changed. */
const EVERYONE = "*"
/** Organizations kept at once; past it the cache starts again (a server serves few organizations). */
const MAX_ORGANIZATIONS = 1_000

/** An organization's stored AI configuration: what every model call resolves its route from. */
export interface AiConfigSnapshot {
  readonly routes: ReadonlyArray<RouteRow>
  readonly gateways: ReadonlyArray<GatewayRow>
  readonly assistantModels: ReadonlyArray<AssistantModelRow>
}

export interface Entry {
  readonly snapshot: AiConfigSnapshot
  /** Sealed keys by gateway id (null: none set), read on first use. Keys are opened per call, never kept open. */
  readonly sealed: Map<string, string | null>
}

/**
 * `build` of a snapshot, computed once per snapshot: a snapshot is replaced, never changed, when the configuration
 * changes, so what is derived from it holds as long as it does (route and gateway views, read several times a chat).
 */
export const perSnapshot = <A>(build: (snapshot: AiConfigSnapshot) => A) => {
  const built = new WeakMap<AiConfigSnapshot, A>()
  return (snapshot: AiConfigSnapshot): A => {
    if (built.has(snapshot)) return built.get(snapshot)!
    const value = build(snapshot)
    built.set(snapshot, value)
    return value
  }
}

/**
 * One chat's configuration: within `withAiConfig`, the organization's entry read first serves every later read of
 * the chat (keyword planning, the model options, the answering model), so a chat sees one configuration and pays
 * for one catch-up with the change notifications instead of one per read. Only for work that changes no AI
 * configuration itself: its own change would not be seen.
 */
export type SharedAiConfig = Map<string, Entry>
const sharedAiConfig = FiberRef.unsafeMake<Option.Option<SharedAiConfig>>(Option.none())

/** Runs `effect` with its reads of the AI configuration sharing `shared` (every fiber given the same holder). */
export const withAiConfig = (shared: SharedAiConfig) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, sharedAiConfig, Option.some(shared))

/**
 * Routes, gateways and assistant models per organization, kept by each server process so that a model call
 * (keyword planning, the chat model, query embeddings) resolves its route without SQL. Correct for the
 * same reasons as the principal cache (identity/PrincipalCache.ts):
 *
 * - triggers announce every change on `lore_ai_config` at commit (the organization's id, or `*`), and the
 *   organization's entry goes;
 * - nothing is trusted while the listener is down (lookups read the database, nothing is stored);
 * - a read that raced a change is not stored (a version bumped by every announcement);
 * - an entry serves a call only once every change committed before the call began has been heard
 *   (`DatabaseNotifications.caughtUp`: immediate on embedded PGlite, one shared round trip on PostgreSQL; a chat's
 *   shared configuration, which follows no write of its own to it, uses its request's first round trip), so
 *   a change made through any server applies to the next call on every server, without a restart;
 * - inside a transaction the database is read, never the cache: the transaction may have changed what it reads.
 */
export class AiConfigCache extends Effect.Service<AiConfigCache>()("lore/AiConfigCache", {
  scoped: Effect.gen(function* () {
    const repo = yield* GatewaysRepo
    const notifications = yield* DatabaseNotifications
    const entries = new Map<string, Entry>()
    let version = 0
    let listening = false
    const counts = { loads: 0, hits: 0 }

    yield* notifications.listen(AI_CONFIG_CHANNEL, {
      onNotification: (payload) => {
        version++
        if (payload === EVERYONE) entries.clear()
        else entries.delete(payload)
      },
      onListening: (now) => {
        version++
        listening = now
        entries.clear()
      }
    })

    const inTransaction = Effect.map(Effect.serviceOption(SqlClient.TransactionConnection), Option.isSome)

    /** The organization's entry, if it may serve a call that starts now (`inRequest`: or when its request started). */
    const usable = (organizationId: string, inRequest: boolean) =>
      Effect.gen(function* () {
        if (!listening || !entries.has(organizationId) || (yield* inTransaction)) return undefined
        // Read the entry only after catching up: catching up may be what removes it.
        return (yield* (inRequest ? notifications.caughtUpInRequest : notifications.caughtUp)) ? entries.get(organizationId) : undefined
      })

    const load = (organizationId: string) =>
      Effect.gen(function* () {
        const since = version
        const [routes, gateways, assistantModels] = yield* Effect.all([
          repo.routes(organizationId), repo.gateways(organizationId), repo.assistantModels(organizationId)
        ])
        counts.loads++
        const entry: Entry = { snapshot: { routes, gateways, assistantModels }, sealed: new Map() }
        if (listening && since === version && !(yield* inTransaction)) {
          if (entries.size >= MAX_ORGANIZATIONS) entries.clear()
          entries.set(organizationId, entry)
        }
        return entry
      })

    const current = (organizationId: string, inRequest = false) =>
      Effect.flatMap(usable(organizationId, inRequest), (cached) => {
        if (cached === undefined) return load(organizationId)
        counts.hits++
        return Effect.succeed(cached)
      })

    const entryOf = (organizationId: string) =>
      Effect.flatMap(FiberRef.get(sharedAiConfig), (shared) => {
        if (Option.isNone(shared)) return current(organizationId)
        const held = shared.value.get(organizationId)
        if (held !== undefined) {
          counts.hits++
          return Effect.succeed(held)
        }
        return Effect.tap(current(organizationId, true), (entry) => Effect.sync(() => shared.value.set(organizationId, entry)))
      })

    return {
      /** The organization's routes, gateways and assistant models. */
      snapshot: (organizationId: string) => Effect.map(entryOf(organizationId), (entry) => entry.snapshot),

      /** A stored gateway of the organization with its sealed key (null: none set); undefined when there is no such gateway. */
      gateway: (organizationId: string, gatewayId: string) =>
        Effect.gen(function* () {
          const entry = yield* entryOf(organizationId)
          const row = entry.snapshot.gateways.find((gateway) => gateway.id === gatewayId)
          if (row === undefined) return undefined
          const known = entry.sealed.get(gatewayId)
          if (known !== undefined) return { row, sealed: known }
          const since = version
          const sealed = (yield* repo.sealedCredential(gatewayId))?.credentialSealed ?? null
          if (since === version && entries.get(organizationId) === entry) entry.sealed.set(gatewayId, sealed)
          return { row, sealed }
        }),

      /** How often the database was read (`loads`) and the cache answered (`hits`) since the start. */
      counts: () => ({ ...counts })
    }
  }),
  dependencies: [GatewaysRepo.Default]
}) {}
