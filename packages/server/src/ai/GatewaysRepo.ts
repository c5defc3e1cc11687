import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, exec, one, row, rows, Timestamp } from "../db/Rows"
import { GatewayCategory, GatewayPreset, GatewayProtocol, ReasoningEffort, Workload } from "./Model"

export const GatewayRow = Schema.Struct({
  id: Schema.String,
  gatewayKey: Schema.String,
  displayName: Schema.String,
  preset: GatewayPreset,
  category: GatewayCategory,
  protocol: GatewayProtocol,
  baseUrl: Schema.String,
  requestTimeoutSeconds: Schema.Number,
  enabled: Schema.Boolean,
  supportsReasoningEffort: Schema.Boolean,
  version: Schema.Number,
  credentialSet: Schema.Boolean,
  credentialSetBy: Schema.NullOr(Schema.String),
  credentialSetAt: Schema.NullOr(Timestamp)
})
export type GatewayRow = typeof GatewayRow.Type

export const AssistantModelRow = Schema.Struct({
  id: Schema.String,
  gatewayId: Schema.String,
  modelId: Schema.String,
  displayName: Schema.String,
  toolCalling: Schema.Boolean
})
export type AssistantModelRow = typeof AssistantModelRow.Type

export const RouteRow = Schema.Struct({
  workload: Workload,
  gatewayId: Schema.String,
  modelId: Schema.String,
  providerReasoningEffort: Schema.NullOr(ReasoningEffort),
  /** The vector size an embedding route asks for; null for the other workloads. */
  dimensions: Schema.NullOr(Schema.Number),
  version: Schema.Number
})
export type RouteRow = typeof RouteRow.Type

const Sealed = Schema.Struct({ credentialSealed: Schema.NullOr(Schema.String) })
const Id = Schema.Struct({ id: Schema.String })

export interface GatewaySettings {
  readonly displayName: string
  readonly baseUrl: string
  readonly requestTimeoutSeconds: number
  readonly enabled: boolean
  readonly supportsReasoningEffort: boolean
}

export interface NewGateway extends GatewaySettings {
  readonly gatewayKey: string
  readonly preset: GatewayPreset
  readonly category: GatewayCategory
  readonly protocol: GatewayProtocol
}

/** SQL for AI gateways, their assistant models and the workload routes. The sealed credential is read only by `sealedCredential`. */
export class GatewaysRepo extends Effect.Service<GatewaysRepo>()("lore/GatewaysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, gateway_key, display_name, preset, category, protocol, base_url, request_timeout_seconds, enabled,
      supports_reasoning_effort, version, credential_sealed IS NOT NULL AS credential_set, credential_set_by, credential_set_at`)
    return {
      gateways: rows("ai.gateways", GatewayRow, (organizationId: string) =>
        sql`SELECT ${columns} FROM ai_gateways WHERE organization_id = ${organizationId} ORDER BY display_name, gateway_key`),
      gateway: row("ai.gateway", GatewayRow, (organizationId: string, id: string) =>
        sql`SELECT ${columns} FROM ai_gateways WHERE organization_id = ${organizationId} AND id = ${id}`),
      /** The gateway, its row locked until the transaction ends (changes and route checks serialize on it). */
      lockGateway: row("ai.lockGateway", GatewayRow, (organizationId: string, id: string) =>
        sql`SELECT ${columns} FROM ai_gateways WHERE organization_id = ${organizationId} AND id = ${id} FOR UPDATE`),
      /** The new gateway, or undefined when its key is taken. */
      insertGateway: row("ai.insertGateway", GatewayRow, (organizationId: string, gateway: NewGateway) => sql`
        INSERT INTO ai_gateways (organization_id, gateway_key, display_name, preset, category, protocol, base_url, request_timeout_seconds,
          enabled, supports_reasoning_effort)
        VALUES (${organizationId}, ${gateway.gatewayKey}, ${gateway.displayName}, ${gateway.preset}, ${gateway.category}, ${gateway.protocol},
          ${gateway.baseUrl}, ${gateway.requestTimeoutSeconds}, ${gateway.enabled}, ${gateway.supportsReasoningEffort})
        ON CONFLICT (organization_id, gateway_key) DO NOTHING
        RETURNING ${columns}`),
      /** The updated gateway, or undefined when `version` is not the stored one. */
      updateGateway: row("ai.updateGateway", GatewayRow, (id: string, version: number, settings: GatewaySettings) => sql`
        UPDATE ai_gateways SET display_name = ${settings.displayName}, base_url = ${settings.baseUrl},
          request_timeout_seconds = ${settings.requestTimeoutSeconds}, enabled = ${settings.enabled},
          supports_reasoning_effort = ${settings.supportsReasoningEffort}, version = version + 1, updated_at = now()
        WHERE id = ${id} AND version = ${version}
        RETURNING ${columns}`),
      deleteGateway: exec((id: string) => sql`DELETE FROM ai_gateways WHERE id = ${id}`),
      setCredential: exec((id: string, sealed: string, userId: string | null) => sql`
        UPDATE ai_gateways SET credential_sealed = ${sealed}, credential_set_by = ${userId}, credential_set_at = now(), updated_at = now()
        WHERE id = ${id}`),
      sealedCredential: row("ai.sealedCredential", Sealed, (id: string) => sql`SELECT credential_sealed FROM ai_gateways WHERE id = ${id}`),

      assistantModels: rows("ai.assistantModels", AssistantModelRow, (organizationId: string) => sql`
        SELECT m.id, m.gateway_id, m.model_id, m.display_name, m.tool_calling FROM ai_assistant_models m
        JOIN ai_gateways g ON g.id = m.gateway_id WHERE g.organization_id = ${organizationId}
        ORDER BY m.gateway_id, m.position`),
      /** Replaces a gateway's assistant models, keeping the id of a model that stays (by modelId). */
      replaceAssistantModels: (gatewayId: string, models: ReadonlyArray<{ readonly modelId: string; readonly displayName: string; readonly toolCalling?: boolean | undefined }>) =>
        Effect.gen(function* () {
          const keep = models.map((model) => model.modelId)
          yield* Effect.orDie(keep.length === 0
            ? sql`DELETE FROM ai_assistant_models WHERE gateway_id = ${gatewayId}`
            : sql`DELETE FROM ai_assistant_models WHERE gateway_id = ${gatewayId} AND NOT (model_id = ANY(${keep}))`)
          for (const [position, model] of models.entries()) {
            yield* one("ai.upsertAssistantModel", Id, () => sql`
              INSERT INTO ai_assistant_models (gateway_id, model_id, display_name, position, tool_calling)
              VALUES (${gatewayId}, ${model.modelId}, ${model.displayName}, ${position}, ${model.toolCalling ?? false})
              ON CONFLICT (gateway_id, model_id) DO UPDATE SET display_name = EXCLUDED.display_name, position = EXCLUDED.position, tool_calling = EXCLUDED.tool_calling
              RETURNING id`)()
          }
        }),

      routes: rows("ai.routes", RouteRow, (organizationId: string) => sql`
        SELECT workload, gateway_id, model_id, provider_reasoning_effort, dimensions, version FROM ai_routes
        WHERE organization_id = ${organizationId}`),
      routesUsing: rows("ai.routesUsing", RouteRow, (organizationId: string, gatewayId: string) => sql`
        SELECT workload, gateway_id, model_id, provider_reasoning_effort, dimensions, version FROM ai_routes
        WHERE organization_id = ${organizationId} AND gateway_id = ${gatewayId} ORDER BY workload`),
      /** Creates the workload's admin route (version 1); undefined when one exists already. */
      insertRoute: row("ai.insertRoute", RouteRow, (organizationId: string, route: Omit<RouteRow, "version">, userId: string | null) => sql`
        INSERT INTO ai_routes (organization_id, workload, gateway_id, model_id, provider_reasoning_effort, dimensions, updated_by)
        VALUES (${organizationId}, ${route.workload}, ${route.gatewayId}, ${route.modelId}, ${route.providerReasoningEffort}, ${route.dimensions}, ${userId})
        ON CONFLICT (organization_id, workload) DO NOTHING
        RETURNING workload, gateway_id, model_id, provider_reasoning_effort, dimensions, version`),
      /** Changes the admin route; undefined when `version` is not the stored one (or there is none). */
      updateRoute: row("ai.updateRoute", RouteRow, (organizationId: string, route: Omit<RouteRow, "version">, version: number, userId: string | null) => sql`
        UPDATE ai_routes SET gateway_id = ${route.gatewayId}, model_id = ${route.modelId}, provider_reasoning_effort = ${route.providerReasoningEffort},
          dimensions = ${route.dimensions},
          version = version + 1, updated_by = ${userId}, updated_at = now()
        WHERE organization_id = ${organizationId} AND workload = ${route.workload} AND version = ${version}
        RETURNING workload, gateway_id, model_id, provider_reasoning_effort, dimensions, version`),
      route: row("ai.route", RouteRow, (organizationId: string, workload: Workload) => sql`
        SELECT workload, gateway_id, model_id, provider_reasoning_effort, dimensions, version FROM ai_routes
        WHERE organization_id = ${organizationId} AND workload = ${workload} FOR UPDATE`),
      /** The organization a single-organization server serves (the first made), for reports without a caller. */
      firstOrganization: row("ai.firstOrganization", Id, () => sql`SELECT id FROM organizations ORDER BY created_at, id LIMIT 1`),
      deleteRoute: affected((organizationId: string, workload: Workload) =>
        sql`DELETE FROM ai_routes WHERE organization_id = ${organizationId} AND workload = ${workload} RETURNING workload`)
    }
  })
}) {}
