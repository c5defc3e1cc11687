import { Migrator, SqlClient } from "@effect/sql"
import { Context, Effect, Layer, Schema } from "effect"
import { row } from "./Rows"
import identity from "./migrations/0001_identity"
import administration from "./migrations/0002_administration"
import jobs from "./migrations/0003_jobs"
import knowledge from "./migrations/0004_knowledge"
import searchPostings from "./migrations/0005_search_postings"
import knowledgeVisibility from "./migrations/0006_knowledge_visibility"
import principalSignals from "./migrations/0007_principal_signals"
import aiGateways from "./migrations/0008_ai_gateways"
import aiUsage from "./migrations/0009_ai_usage"
import embeddingGenerations from "./migrations/0010_embedding_generations"
import assistant from "./migrations/0011_assistant"
import assistantFiles from "./migrations/0012_assistant_files"
import assets from "./migrations/0013_assets"
import assistantEvidence from "./migrations/0014_assistant_evidence"
import fileCitations from "./migrations/0015_file_citations"
import skills from "./migrations/0016_skills"
import provisioning from "./migrations/0017_provisioning"
import assetReleaseSignals from "./migrations/0018_asset_release_signals"
import graph from "./migrations/0019_graph"
import connectors from "./migrations/0020_connectors"
import connectorCrawls from "./migrations/0021_connector_crawls"
import connectorDocumentsWithoutAcl from "./migrations/0022_connector_documents_without_acl"
import searchQueryConfiguration from "./migrations/0023_search_query_configuration"
import searchImpacts from "./migrations/0024_search_impacts"
import searchBlocks from "./migrations/0025_search_blocks"
import searchAppendedBlocks from "./migrations/0026_search_appended_blocks"
import scimLinkExistingUsers from "./migrations/0027_scim_link_existing_users"
import connectorPermissions from "./migrations/0029_connector_permissions"
import aiConfigSignals from "./migrations/0031_ai_config_signals"
import assistantToolSteps from "./migrations/0032_assistant_tool_steps"
import assetFeedback from "./migrations/0033_asset_feedback"
import conversationLastSequence from "./migrations/0039_conversation_last_sequence"
import assetSearch from "./migrations/0040_asset_search"
import searchAppendedBlockCounts from "./migrations/0041_search_appended_block_counts"
import searchBlockRuns from "./migrations/0042_search_block_runs"

/** Numbered migrations, applied in order at start. Append only: never edit one that has shipped. */
export const migrations = {
  "0001_identity": identity,
  "0002_administration": administration,
  "0003_jobs": jobs,
  "0004_knowledge": knowledge,
  "0005_search_postings": searchPostings,
  "0006_knowledge_visibility": knowledgeVisibility,
  "0007_principal_signals": principalSignals,
  "0008_ai_gateways": aiGateways,
  "0009_ai_usage": aiUsage,
  "0010_embedding_generations": embeddingGenerations,
  "0011_assistant": assistant,
  "0012_assistant_files": assistantFiles,
  "0013_assets": assets,
  "0014_assistant_evidence": assistantEvidence,
  "0015_file_citations": fileCitations,
  "0016_skills": skills,
  "0017_provisioning": provisioning,
  "0018_asset_release_signals": assetReleaseSignals,
  "0019_graph": graph,
  "0020_connectors": connectors,
  "0021_connector_crawls": connectorCrawls,
  "0022_connector_documents_without_acl": connectorDocumentsWithoutAcl,
  "0023_search_query_configuration": searchQueryConfiguration,
  "0024_search_impacts": searchImpacts,
  "0025_search_blocks": searchBlocks,
  "0026_search_appended_blocks": searchAppendedBlocks,
  "0027_scim_link_existing_users": scimLinkExistingUsers,
  "0029_connector_permissions": connectorPermissions,
  "0031_ai_config_signals": aiConfigSignals,
  "0032_assistant_tool_steps": assistantToolSteps,
  "0033_asset_feedback": assetFeedback,
  "0039_conversation_last_sequence": conversationLastSequence,
  "0040_asset_search": assetSearch,
  "0041_search_appended_block_counts": searchAppendedBlockCounts,
  "0042_search_block_runs": searchBlockRuns
}

const run = Migrator.make({})

const Level = Schema.Struct({ level: Schema.NullOr(Schema.Number) })

/** The highest migration applied (read once, when the migrations have run; handlers read `Migrated`). */
const migrationLevel = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const found = yield* row("db.migrationLevel", Level, () => sql`SELECT max(migration_id) AS level FROM lore_migrations`)()
  return found?.level ?? 0
})

/**
 * Present once every migration has run. The database layer (db/Sql.ts DatabaseLive) provides the SQL
 * client only together with it, so nothing in the areas can query a schema that is not there yet.
 */
export class Migrated extends Context.Tag("lore/Migrated")<Migrated, { readonly level: number }>() {}

export const MigratedLive = Layer.effect(
  Migrated,
  run({ loader: Migrator.fromRecord(migrations), table: "lore_migrations" }).pipe(
    Effect.tap((applied) =>
      applied.length > 0 ? Effect.logInfo("migrations applied").pipe(Effect.annotateLogs("applied", applied.map(([id, name]) => `${id}_${name}`))) : Effect.void
    ),
    Effect.zipRight(migrationLevel),
    Effect.map((level) => ({ level })),
    Effect.orDie
  )
)
