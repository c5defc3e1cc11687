import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted } from "effect"
import { transactional } from "../db/Sql"
import { actingUserId, type Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { SecretBox } from "../platform/SecretBox"
import { AiConfigCache, perSnapshot } from "./ConfigCache"
import { EmbeddingSettings } from "./EmbeddingSettings"
import { AiVersionConflict, GatewayKeyTaken, GatewayNotFound, InvalidGateway } from "./Errors"
import { GatewayProbe, type GatewayTestResult } from "./GatewayProbe"
import { EmbeddingIndexHooks } from "./EmbeddingIndexHooks"
import { type AssistantModelRow, type GatewayRow, GatewaysRepo } from "./GatewaysRepo"
import { ENVIRONMENT_GATEWAY_ID, type GatewayPreset, type GatewaySource, LOCAL_GATEWAY_ID } from "./Model"
import { creatablePreset, editableGateway, gatewayBaseUrl, gatewayDeletion } from "./Policy"
import { localAssistantModel, presetOf } from "./Presets"
import { quoteInput } from "../domain/Echo"

/** A gateway as the API shows it: never the credential, only whether one is set, by whom and when. */
export interface GatewayView {
  readonly id: string
  readonly gatewayKey: string
  readonly displayName: string
  readonly preset: GatewayPreset
  readonly category: ReturnType<typeof presetOf>["category"]
  readonly protocol: ReturnType<typeof presetOf>["protocol"]
  readonly supportsProviderReasoningEffort: boolean
  readonly baseUrl: string
  readonly requestTimeoutSeconds: number
  readonly enabled: boolean
  readonly version: number
  readonly credentialSet: boolean
  readonly credentialSetByUserId: string | null
  readonly credentialSetAt: Date | null
  readonly assistantModels: ReadonlyArray<{ readonly id: string; readonly modelId: string; readonly displayName: string; readonly toolCalling: boolean }>
  readonly source: GatewaySource
  readonly editable: boolean
}

export interface CreateGatewayInput {
  readonly gatewayKey: string
  readonly displayName: string
  readonly preset: GatewayPreset
  readonly baseUrl?: string | undefined
  readonly requestTimeoutSeconds?: number | undefined
  readonly enabled?: boolean | undefined
  readonly supportsProviderReasoningEffort?: boolean | undefined
}

export interface UpdateGatewayInput {
  readonly displayName?: string | undefined
  readonly baseUrl?: string | undefined
  readonly requestTimeoutSeconds?: number | undefined
  readonly enabled?: boolean | undefined
  readonly supportsProviderReasoningEffort?: boolean | undefined
  readonly version: number
}

export const DEFAULT_TIMEOUT_SECONDS = 60

const localGateway: GatewayView = {
  id: LOCAL_GATEWAY_ID,
  gatewayKey: "local",
  displayName: presetOf("LOCAL").displayName,
  preset: "LOCAL",
  category: "BUILT_IN",
  protocol: "LOCAL",
  supportsProviderReasoningEffort: false,
  baseUrl: presetOf("LOCAL").defaultBaseUrl,
  requestTimeoutSeconds: DEFAULT_TIMEOUT_SECONDS,
  enabled: true,
  version: 1,
  credentialSet: false,
  credentialSetByUserId: null,
  credentialSetAt: null,
  assistantModels: [localAssistantModel],
  source: "BUILT_IN",
  editable: false
}

const viewOf = (row: GatewayRow, models: ReadonlyArray<AssistantModelRow>): GatewayView => ({
  id: row.id,
  gatewayKey: row.gatewayKey,
  displayName: row.displayName,
  preset: row.preset,
  category: row.category,
  protocol: row.protocol,
  supportsProviderReasoningEffort: row.supportsReasoningEffort,
  baseUrl: row.baseUrl,
  requestTimeoutSeconds: row.requestTimeoutSeconds,
  enabled: row.enabled,
  version: row.version,
  credentialSet: row.credentialSet,
  credentialSetByUserId: row.credentialSetBy,
  credentialSetAt: row.credentialSetAt,
  assistantModels: models.filter((model) => model.gatewayId === row.id).map(({ id, modelId, displayName, toolCalling }) => ({ id, modelId, displayName, toolCalling })),
  source: "ADMIN",
  editable: true
})

const notFound = new GatewayNotFound({ detail: "No AI gateway with this id in your organization" })
const stale = (what: string) => new AiVersionConflict({ detail: `${what} changed since the version you sent; read it again and retry` })

/**
 * AI gateways: the built-in LOCAL, the read-only one made from LORE_EMBEDDING_* (when set), and the
 * administrators'. Credentials are sealed with the server key as they arrive and opened only to call the
 * provider; no response, log line, audit entry or error carries them.
 */
export class Gateways extends Effect.Service<Gateways>()("lore/Gateways", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* GatewaysRepo
    const audit = yield* Audit
    const box = yield* SecretBox
    const hooks = yield* EmbeddingIndexHooks
    const probe = yield* GatewayProbe
    const { endpoint } = yield* EmbeddingSettings
    const cache = yield* AiConfigCache

    const environmentGateway: Option.Option<GatewayView & { readonly apiKey: string | undefined }> = Option.map(endpoint, (settings) => {
      const url = new URL(settings.url)
      url.username = ""
      url.password = ""
      const preset = settings.provider === "openai" ? "OPENAI" as const : "OPENAI_COMPATIBLE" as const
      return {
        id: ENVIRONMENT_GATEWAY_ID,
        gatewayKey: "environment",
        displayName: "Embeddings from LORE_EMBEDDING_*",
        preset,
        category: presetOf(preset).category,
        protocol: presetOf(preset).protocol,
        supportsProviderReasoningEffort: false,
        baseUrl: url.toString().replace(/\/(\?|$)/, "$1"),
        requestTimeoutSeconds: Math.max(1, Math.round(settings.requestTimeoutMs / 1000)),
        enabled: true,
        version: 1,
        credentialSet: Option.isSome(settings.apiKey),
        credentialSetByUserId: null,
        credentialSetAt: null,
        assistantModels: [],
        source: "ENVIRONMENT" as const,
        editable: false,
        apiKey: Option.getOrUndefined(Option.map(settings.apiKey, Redacted.value))
      }
    })
    const builtIn = (): ReadonlyArray<GatewayView> => [
      localGateway,
      ...Option.toArray(Option.map(environmentGateway, ({ apiKey: _, ...view }) => view))
    ]

    /** Every gateway of an organization's configuration: the built-in ones, then the administrators'. */
    const viewsOf = perSnapshot((snapshot): ReadonlyArray<GatewayView> =>
      [...builtIn(), ...snapshot.gateways.map((row) => viewOf(row, snapshot.assistantModels))])

    /** Read through the process's cache of the AI configuration (invalidated on every change). */
    const list = (actor: Principal) => Effect.map(cache.snapshot(actor.organizationId), viewsOf)

    const find = (actor: Principal, id: string) =>
      Effect.map(list(actor), (all) => all.find((gateway) => gateway.id === id))

    /** The stored gateway, locked for the rest of the transaction; 404 when it is not the caller's organization's. */
    const lock = (actor: Principal, id: string) =>
      Effect.flatMap(repo.lockGateway(actor.organizationId, id), (row) => (row ? Effect.succeed(row) : Effect.fail(notFound)))

    /** The stored key; a failure when it was sealed under another server key (LORE_SECRET_KEY changed). */
    const openCredential = (gatewayId: string) =>
      Effect.flatMap(repo.sealedCredential(gatewayId), (found) =>
        found?.credentialSealed
          ? Effect.try({ try: () => box.decrypt(found.credentialSealed!), catch: () => "unreadable" as const })
          : Effect.succeed(undefined))

    const audited = (actor: Principal, action: string, row: { readonly id: string; readonly gatewayKey: string }, details: Record<string, unknown> = {}) =>
      audit.record(actor, { action, resourceType: "ai_gateway", resourceId: row.id, details: { gatewayKey: row.gatewayKey, ...details } })

    return {
      list,
      viewsOf,
      find,
      /** The gateway the routes name, as stored or built in; undefined when there is none. */
      lockForRoute: (actor: Principal, id: string) =>
        id === LOCAL_GATEWAY_ID ? Effect.succeed(localGateway)
          : id === ENVIRONMENT_GATEWAY_ID ? Effect.succeed(Option.getOrUndefined(Option.map(environmentGateway, ({ apiKey: _, ...view }) => view)))
          : Effect.map(repo.lockGateway(actor.organizationId, id), (row) => row && viewOf(row, [])),

      create: (actor: Principal, input: CreateGatewayInput) =>
        transaction(
          Effect.gen(function* () {
            yield* creatablePreset(input.preset)
            const preset = presetOf(input.preset)
            const baseUrl = yield* gatewayBaseUrl(input.preset, input.baseUrl)
            const row = yield* repo.insertGateway(actor.organizationId, {
              gatewayKey: input.gatewayKey,
              displayName: input.displayName,
              preset: input.preset,
              category: preset.category,
              protocol: preset.protocol,
              baseUrl,
              requestTimeoutSeconds: input.requestTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
              enabled: input.enabled ?? true,
              supportsReasoningEffort: input.supportsProviderReasoningEffort ?? preset.supportsProviderReasoningEffort
            })
            if (!row) return yield* new GatewayKeyTaken({ detail: `An AI gateway with key ${quoteInput(input.gatewayKey, 100)} exists already` })
            yield* audited(actor, "ai_gateway.create", row, { preset: row.preset, baseUrl: row.baseUrl })
            return viewOf(row, [])
          })
        ),

      update: (actor: Principal, id: string, input: UpdateGatewayInput) =>
        transaction(
          Effect.gen(function* () {
            yield* editableGateway(id)
            const current = yield* lock(actor, id)
            if (current.version !== input.version) return yield* stale(`Gateway ${current.gatewayKey}`)
            const baseUrl = input.baseUrl === undefined ? current.baseUrl : yield* gatewayBaseUrl(current.preset, input.baseUrl)
            const row = yield* repo.updateGateway(id, input.version, {
              displayName: input.displayName ?? current.displayName,
              baseUrl,
              requestTimeoutSeconds: input.requestTimeoutSeconds ?? current.requestTimeoutSeconds,
              enabled: input.enabled ?? current.enabled,
              supportsReasoningEffort: input.supportsProviderReasoningEffort ?? current.supportsReasoningEffort
            })
            if (!row) return yield* stale(`Gateway ${current.gatewayKey}`)
            const { version: _, ...changed } = input
            yield* audited(actor, "ai_gateway.update", row, { changed: Object.keys(changed), version: row.version })
            // Enabling the document route's gateway again lets a paused re-embedding (or missing vectors) continue.
            const routed = yield* repo.routesUsing(actor.organizationId, id)
            if (routed.some((route) => route.workload === "DOCUMENT_EMBEDDING")) yield* hooks.routeChanged(actor.organizationId)
            return viewOf(row, yield* repo.assistantModels(actor.organizationId))
          })
        ),

      remove: (actor: Principal, id: string, version: number | undefined) =>
        transaction(
          Effect.gen(function* () {
            yield* editableGateway(id)
            const current = yield* lock(actor, id)
            if (version !== undefined && current.version !== version) return yield* stale(`Gateway ${current.gatewayKey}`)
            yield* gatewayDeletion(current.gatewayKey, yield* repo.routesUsing(actor.organizationId, id))
            yield* repo.deleteGateway(id)
            yield* audited(actor, "ai_gateway.delete", current)
          })
        ),

      /** Seals the key at once; the audit entry says that it was set, never what it is. */
      setCredential: (actor: Principal, id: string, apiKey: string) =>
        transaction(
          Effect.gen(function* () {
            yield* editableGateway(id)
            const current = yield* lock(actor, id)
            yield* repo.setCredential(id, box.encrypt(apiKey), actingUserId(actor))
            yield* audited(actor, "ai_gateway.credential.set", current)
          })
        ),

      setAssistantModels: (actor: Principal, id: string, models: ReadonlyArray<{ readonly modelId: string; readonly displayName: string; readonly toolCalling?: boolean | undefined }>) =>
        transaction(
          Effect.gen(function* () {
            yield* editableGateway(id)
            const current = yield* lock(actor, id)
            const seen = new Set<string>()
            for (const model of models) {
              if (seen.has(model.modelId)) return yield* new InvalidGateway({ detail: `modelId ${quoteInput(model.modelId, 100)} is listed twice` })
              seen.add(model.modelId)
            }
            yield* repo.replaceAssistantModels(id, models)
            yield* audited(actor, "ai_gateway.assistant_models.set", current, { modelIds: [...seen] })
            const all = yield* repo.assistantModels(actor.organizationId)
            return all.filter((model) => model.gatewayId === id).map(({ id, modelId, displayName, toolCalling }) => ({ id, modelId, displayName, toolCalling }))
          })
        ),

      /**
       * What the model layer needs to call a gateway: its settings and its opened key (`unreadable` when it
       * was sealed under another server key); undefined when the gateway does not exist (any more).
       */
      connection: (actor: Principal, id: string) =>
        Effect.gen(function* () {
          if (id === ENVIRONMENT_GATEWAY_ID) {
            if (Option.isNone(environmentGateway)) return undefined
            const { apiKey, ...view } = environmentGateway.value
            return { gateway: view as GatewayView, apiKey: apiKey as string | "unreadable" | undefined }
          }
          const found = yield* cache.gateway(actor.organizationId, id)
          if (!found) return undefined
          const { row, sealed } = found
          // Opened for this call only: the cache keeps the sealed key, never the key itself.
          const apiKey = sealed === null ? undefined : yield* Effect.try({ try: () => box.decrypt(sealed), catch: () => "unreadable" as const }).pipe(Effect.merge)
          return { gateway: viewOf(row, []), apiKey: apiKey as string | "unreadable" | undefined }
        }),

      /** Tests a saved gateway with its stored key (or the environment's). */
      test: (actor: Principal, id: string): Effect.Effect<GatewayTestResult, GatewayNotFound> =>
        Effect.gen(function* () {
          if (id === LOCAL_GATEWAY_ID) return yield* probe.test({ protocol: "LOCAL", baseUrl: "", requestTimeoutSeconds: 1, apiKey: undefined })
          if (id === ENVIRONMENT_GATEWAY_ID) {
            if (Option.isNone(environmentGateway)) return yield* notFound
            const gateway = environmentGateway.value
            return yield* probe.test({ protocol: gateway.protocol, baseUrl: gateway.baseUrl, requestTimeoutSeconds: gateway.requestTimeoutSeconds, apiKey: gateway.apiKey })
          }
          const row = yield* repo.gateway(actor.organizationId, id)
          if (!row) return yield* notFound
          const apiKey = yield* Effect.either(openCredential(id))
          if (apiKey._tag === "Left") {
            return {
              authenticated: false, models: [], errorCode: "CREDENTIAL_UNREADABLE" as const, durationMillis: 0,
              errorMessage: "The stored API key cannot be decrypted with this server's key (was LORE_SECRET_KEY or the data dir's secret.key changed?); set the key again"
            }
          }
          return yield* probe.test({ protocol: row.protocol, baseUrl: row.baseUrl, requestTimeoutSeconds: row.requestTimeoutSeconds, apiKey: apiKey.right })
        }),

      /** Tests settings before saving them, with a key that is used for this one call and kept nowhere. */
      testUnsaved: (input: { readonly preset: GatewayPreset; readonly baseUrl?: string | undefined; readonly requestTimeoutSeconds?: number | undefined; readonly apiKey?: string | undefined }) =>
        Effect.gen(function* () {
          const baseUrl = yield* gatewayBaseUrl(input.preset, input.baseUrl)
          return yield* probe.test({
            protocol: presetOf(input.preset).protocol,
            baseUrl,
            requestTimeoutSeconds: input.requestTimeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS,
            apiKey: input.apiKey
          })
        })
    }
  }),
  dependencies: [GatewaysRepo.Default, Audit.Default, SecretBox.Default, GatewayProbe.Default, EmbeddingIndexHooks.Default, AiConfigCache.Default]
}) {}
