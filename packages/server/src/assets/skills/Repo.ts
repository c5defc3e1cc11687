import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, row } from "../../db/Rows"

const PackageRow = Schema.Struct({ content: Schema.Uint8ArrayFromSelf, byteLength: Schema.Number })
const Id = Schema.Struct({ id: Schema.String })
const ActivationRow = Schema.Struct({ enabled: Schema.Boolean })

/** SQL for skill packages (content-addressed zips) and per-user activations. */
export class SkillsRepo extends Effect.Service<SkillsRepo>()("lore/SkillsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      /** Stores a package once per digest (the same bytes arrive again on every unchanged push). */
      insertPackage: exec((sha256: string, content: Uint8Array) =>
        sql`INSERT INTO skill_packages (sha256, content, byte_length) VALUES (${sha256}, ${content}, ${content.byteLength}) ON CONFLICT (sha256) DO NOTHING`),
      packageBytes: row("skills.package", PackageRow, (sha256: string) => sql`SELECT content, byte_length FROM skill_packages WHERE sha256 = ${sha256}`),
      /** The asset named namespace/slug in the organization, whoever may see it (imports report a taken name). */
      assetBySlug: row("skills.assetBySlug", Id, (organizationId: string, namespace: string, slug: string) =>
        sql`SELECT id FROM assets WHERE organization_id = ${organizationId} AND namespace = ${namespace} AND slug = ${slug}`),
      activation: row("skills.activation", ActivationRow, (assetId: string, userId: string) =>
        sql`SELECT enabled FROM skill_activations WHERE asset_id = ${assetId} AND user_id = ${userId}`),
      setActivation: exec((assetId: string, userId: string, enabled: boolean) => sql`
        INSERT INTO skill_activations (asset_id, user_id, enabled) VALUES (${assetId}, ${userId}, ${enabled})
        ON CONFLICT (asset_id, user_id) DO UPDATE SET enabled = EXCLUDED.enabled, updated_at = now()`)
    }
  })
}) {}
