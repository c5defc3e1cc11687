import { Effect, Schema } from "effect"
import { classificationRank, clearanceCeiling } from "../domain/Model"
import type { Principal } from "../domain/Principal"
import { Assets } from "../assets/Assets"
import { AssetTools } from "../assets/Tools"
import { SEARCH_MAX_DEPTH, SEARCH_MAX_LIMIT, SEARCH_MAX_QUERY_CHARS } from "../knowledge/Api"
import { KnowledgeSearch } from "../knowledge/Search"
import { decodeArguments, type Refusal } from "./Results"

/**
 * The MCP tools: each one calls the same service as its REST endpoint, for the authenticated caller, so the
 * access evaluator filters every answer and the audit trail records what the REST call would record. Input
 * schemas are JSON Schema (what tools/list shows); arguments are decoded again here with Effect Schema, so a bad
 * argument is a VALIDATION_FAILED tool error rather than a protocol failure.
 */

const Uuid = Schema.UUID
const AssetType = Schema.Literal("PROMPT_TEMPLATE", "WORK_INSTRUCTION", "CAPABILITY_PACK", "SKILL")
const assetTypes = ["PROMPT_TEMPLATE", "WORK_INSTRUCTION", "CAPABILITY_PACK", "SKILL"]
const uuid = { type: "string", format: "uuid" } as const

export interface ToolSpec {
  readonly name: string
  readonly title: string
  readonly description: string
  readonly inputSchema: { type: "object"; properties: Record<string, unknown>; required?: Array<string>; additionalProperties: false }
  readonly run: (caller: Principal, args: unknown) => Effect.Effect<Record<string, unknown>, Refusal | { code: string; detail: string }>
}

const SearchArgs = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(SEARCH_MAX_QUERY_CHARS), Schema.pattern(/\S/, { message: () => "must contain a word" })),
  knowledgeSpaceIds: Schema.optional(Schema.Array(Uuid).pipe(Schema.maxItems(50))),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, SEARCH_MAX_LIMIT))),
  offset: Schema.optional(Schema.Int.pipe(Schema.between(0, SEARCH_MAX_DEPTH - 1)))
})
const CitationArgs = Schema.Struct({ citationId: Uuid })
const ListArgs = Schema.Struct({ type: Schema.optional(AssetType), q: Schema.optional(Schema.String.pipe(Schema.maxLength(500))) })
const ShowArgs = Schema.Struct({ assetId: Uuid })
const ReleaseArgs = Schema.Struct({ assetId: Uuid, releaseId: Uuid })
const RenderArgs = Schema.Struct({ assetId: Uuid, releaseId: Uuid, variables: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }) })
const RecommendArgs = Schema.Struct({ task: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)), type: Schema.optional(AssetType) })

type SearchEvidence = Effect.Effect.Success<ReturnType<KnowledgeSearch["search"]>>["evidence"][number]

/** One knowledge_search hit, as MCP and the assistant's tool loop both answer it. */
export const knowledgeHit = (e: SearchEvidence) => ({
  citationId: e.citationId,
  title: e.title,
  content: e.content,
  heading: e.heading,
  startPage: e.startPage,
  endPage: e.endPage,
  knowledgeSpaceId: e.knowledgeSpaceId,
  knowledgeAssetId: e.knowledgeAssetId,
  sourceId: e.knowledgeAssetVersionId,
  mediaType: e.mediaType,
  documentUri: `lore://documents/${e.knowledgeAssetVersionId}`,
  classification: e.classification,
  relevanceScore: e.relevanceScore
})
export type KnowledgeHit = ReturnType<typeof knowledgeHit>

/** The MCP tools that only read: the ones the assistant's tool loop may call (by these names, with these arguments). */
export const READ_ONLY_SHARED_TOOLS = ["knowledge_search", "citation_excerpt", "asset_show", "assets_recommend", "work_instruction_read", "prompt_render"] as const

/** A payload stored as JSON text, as an object for the agent (left as text if it is not JSON). */
const parsed = (payload: string): unknown => {
  try {
    return JSON.parse(payload)
  } catch {
    return payload
  }
}

export const makeTools = Effect.gen(function* () {
  const knowledge = yield* KnowledgeSearch
  const tools = yield* AssetTools
  const assets = yield* Assets

  const specs: Array<ToolSpec> = [
    {
      name: "knowledge_search",
      title: "Search the knowledge base",
      description:
        "Searches the documents you may read (BM25, fused with vectors when an embedding model is configured). Each hit has its citationId " +
        "(for citation_excerpt and GET /api/citations/{id}/excerpt), title, content, heading and pages.",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, maxLength: SEARCH_MAX_QUERY_CHARS, description: "A question or keywords (a long one is searched by its most informative terms)" },
          knowledgeSpaceIds: { type: "array", items: uuid, maxItems: 50, description: "Only these knowledge spaces (default: every space you may read)" },
          limit: { type: "integer", minimum: 1, maximum: SEARCH_MAX_LIMIT, description: "At most this many hits (default 10)" },
          offset: { type: "integer", minimum: 0, maximum: SEARCH_MAX_DEPTH - 1, description: "Skip this many of the best hits (the previous answer's nextOffset)" }
        },
        required: ["query"],
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.gen(function* () {
          const args = yield* decodeArguments(SearchArgs, input)
          const found = yield* knowledge.search(caller, { q: args.query, knowledgeSpaceIds: args.knowledgeSpaceIds, limit: args.limit, offset: args.offset })
          return { mode: found.mode, nextOffset: found.nextOffset, hits: found.evidence.map(knowledgeHit) }
        })
    },
    {
      name: "citation_excerpt",
      title: "Read a citation's excerpt",
      description: "The cited passage with the text around it, for a citationId from knowledge_search (the answer of GET /api/citations/{id}/excerpt).",
      inputSchema: { type: "object", properties: { citationId: { ...uuid, description: "A hit's citationId" } }, required: ["citationId"], additionalProperties: false },
      run: (caller, input) => Effect.flatMap(decodeArguments(CitationArgs, input), (args) => knowledge.excerpt(caller, args.citationId))
    },
    {
      name: "assets_list",
      title: "List released assets",
      description: "Released assets (prompt templates, work instructions, capability packs, skills) you may use, each with its latest available release.",
      inputSchema: {
        type: "object",
        properties: {
          type: { type: "string", enum: assetTypes, description: "Only assets of this type" },
          q: { type: "string", maxLength: 500, description: "Only assets whose title, summary, namespace or slug contain one of these words" }
        },
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.gen(function* () {
          const args = yield* decodeArguments(ListArgs, input)
          const found = yield* tools.recommendations(caller, { q: args.q, type: args.type })
          const ordered = args.q ? found.recommendations : [...found.recommendations].sort((a, b) => `${a.namespace}/${a.slug}`.localeCompare(`${b.namespace}/${b.slug}`))
          return { assets: ordered.map(({ availability: _, ...asset }) => asset) }
        })
    },
    {
      name: "asset_show",
      title: "Show a released asset",
      description: "One asset you may use with its available releases and their content (payload): a prompt template's variables, a work instruction's steps, a skill's files.",
      inputSchema: { type: "object", properties: { assetId: uuid }, required: ["assetId"], additionalProperties: false },
      run: (caller, input) =>
        Effect.gen(function* () {
          const args = yield* decodeArguments(ShowArgs, input)
          const asset = yield* assets.present(caller, args.assetId)
          const ceiling = classificationRank[clearanceCeiling[caller.clearance]]
          const releases = asset.releases
            .filter((r) => r.availability === "AVAILABLE" && classificationRank[r.classification] <= ceiling)
            .sort((a, b) => b.sequence - a.sequence)
            .map((r) => ({
              releaseId: r.id,
              versionLabel: r.versionLabel,
              title: r.title,
              summary: r.summary,
              classification: r.classification,
              digest: r.digest,
              releasedAt: r.releasedAt,
              schemaVersion: r.schemaVersion,
              payload: parsed(r.payload)
            }))
          if (releases.length === 0) return yield* Effect.fail({ code: "RELEASE_NOT_FOUND", detail: "The asset has no available release that you may use" })
          return {
            assetId: asset.id,
            type: asset.type,
            namespace: asset.namespace,
            slug: asset.slug,
            title: releases[0]!.title,
            summary: releases[0]!.summary,
            knowledgeSpaceId: asset.knowledgeSpaceId,
            portfolioState: asset.portfolioState,
            releases
          }
        })
    },
    {
      name: "prompt_render",
      title: "Render a released prompt template",
      description: "Fills a released PROMPT_TEMPLATE with your variables (checked against its declarations) and answers the system instruction and user prompt; nothing is sent to a model.",
      inputSchema: {
        type: "object",
        properties: {
          assetId: uuid,
          releaseId: uuid,
          variables: { type: "object", additionalProperties: true, description: "Values by variable name (see asset_show: STRING, NUMBER, BOOLEAN, ENUM, DATE as YYYY-MM-DD)" }
        },
        required: ["assetId", "releaseId"],
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.flatMap(decodeArguments(RenderArgs, input), (args) => tools.promptRender(caller, args.assetId, args.releaseId, args.variables))
    },
    {
      name: "work_instruction_read",
      title: "Read a work instruction",
      description: "A released WORK_INSTRUCTION: purpose, prerequisites, steps (with checks, escalation and prohibited actions), and whether you acknowledged it.",
      inputSchema: { type: "object", properties: { assetId: uuid, releaseId: uuid }, required: ["assetId", "releaseId"], additionalProperties: false },
      run: (caller, input) => Effect.flatMap(decodeArguments(ReleaseArgs, input), (args) => tools.workInstruction(caller, args.assetId, args.releaseId))
    },
    {
      name: "assets_recommend",
      title: "Recommend assets for a task",
      description: "Released assets you may use that fit a task, best match first (task words in title, summary, namespace and slug).",
      inputSchema: {
        type: "object",
        properties: {
          task: { type: "string", minLength: 1, maxLength: 500, description: "What you are about to do" },
          type: { type: "string", enum: assetTypes, description: "Only assets of this type" }
        },
        required: ["task"],
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.flatMap(decodeArguments(RecommendArgs, input), (args) => tools.recommendations(caller, { q: args.task, type: args.type }))
    }
  ]
  return specs
})
