import { Effect, Schema } from "effect"
import type { Principal } from "../../domain/Principal"
import { GraphExplorerService } from "../../graph/Explorer"
import { GraphJobs } from "../../graph/GraphJobs"
import { decodeArguments, type Refusal } from "../../mcp/Results"
import { type KnowledgeHit, knowledgeHit, makeTools, READ_ONLY_SHARED_TOOLS, type ToolSpec } from "../../mcp/Tools"
import { Evidence as ConversationEvidence } from "../evidence/Evidence"
import { AssistantFiles } from "../files/Files"
import { type ChatPassage, filePassage, knowledgePassage } from "../Passages"
import type { Evidence } from "../Retrieval"

/**
 * The assistant's tools: the read-only MCP tools (mcp/Tools.ts `makeTools`, the same names, argument schemas
 * and services, so every call runs as the caller and the access evaluator filters it), plus two the chat alone
 * has: `graph_explore` (offered only when some space has graph retrieval on) and `conversation_files_search`
 * (the chat's attached files and the conversation's evidence). Each call answers its output (what the model
 * reads and the user sees) and the passages it found, which the loop numbers for citation.
 */

export interface ToolAnswer {
  readonly output: Record<string, unknown>
  /** Passages the output carries, to be numbered once across every step (hits keyed by citationId). */
  readonly passages: ReadonlyArray<ChatPassage>
}

export interface AssistantTool {
  readonly name: string
  readonly description: string
  readonly inputSchema: ToolSpec["inputSchema"]
  readonly run: (caller: Principal, args: unknown) => Effect.Effect<ToolAnswer, Refusal>
}

/** What one chat's tools are scoped to: its conversation, its attached files and the spaces it asked for. */
export interface ChatScope {
  readonly conversationId: string
  readonly fileIds: ReadonlyArray<string>
  readonly knowledgeSpaceIds: ReadonlyArray<string> | undefined
  /** Offer graph_explore (graph retrieval is on in some space). */
  readonly graph: boolean
}

const GraphArgs = Schema.Struct({
  knowledgeSpaceId: Schema.UUID,
  q: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  entityLimit: Schema.optional(Schema.Int.pipe(Schema.between(1, 50))),
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.between(0, 2)))
})
const FilesArgs = Schema.Struct({
  query: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000), Schema.pattern(/\S/, { message: () => "must contain a word" })),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 10)))
})

/** A knowledge_search hit back as a chat passage (the shapes carry the same fields). */
export const hitPassage = (hit: KnowledgeHit): ChatPassage => ({
  kind: "KNOWLEDGE", citationId: hit.citationId, sourceId: hit.sourceId, knowledgeAssetId: hit.knowledgeAssetId, fileGeneration: null,
  title: hit.title, heading: hit.heading, startPage: hit.startPage, endPage: hit.endPage, content: hit.content, mediaType: hit.mediaType
})

/** A passage as a files-search hit: a FILE chunk of an attached file or a KNOWLEDGE passage of the conversation's evidence. */
export const passageHit = (passage: ChatPassage) => ({
  kind: passage.kind, citationId: passage.citationId, sourceId: passage.sourceId, title: passage.title, heading: passage.heading,
  startPage: passage.startPage, endPage: passage.endPage, content: passage.content
})

/** The files-search output for passages found (attached files' chunks first, then the conversation's evidence). */
export const filesOutput = (passages: ReadonlyArray<ChatPassage>) => ({ output: { hits: passages.map(passageHit) }, passages }) satisfies ToolAnswer

export const searchOutput = (evidence: ReadonlyArray<Evidence>, nextOffset: number | null = null) => {
  const hits = evidence.map(knowledgeHit)
  return { output: { mode: "LEXICAL", nextOffset, hits }, passages: hits.map(hitPassage) } satisfies ToolAnswer
}

const refusalOf = (error: unknown): Refusal => {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown }
  return typeof code === "string" && typeof detail === "string" ? { code, detail } : { code: "INTERNAL_ERROR", detail: "The tool failed" }
}

export class AssistantTools extends Effect.Service<AssistantTools>()("lore/AssistantTools", {
  effect: Effect.gen(function* () {
    const shared = (yield* makeTools).filter((spec) => (READ_ONLY_SHARED_TOOLS as ReadonlyArray<string>).includes(spec.name))
    const explorer = yield* GraphExplorerService
    const graphJobs = yield* GraphJobs
    const files = yield* AssistantFiles
    const evidence = yield* ConversationEvidence

    /** A shared MCP tool; knowledge_search keeps to the chat's spaces when it named some. */
    const fromSpec = (spec: ToolSpec, scope: ChatScope): AssistantTool => ({
      name: spec.name,
      description: spec.description,
      inputSchema: spec.inputSchema,
      run: (caller, args) => {
        const scoped = spec.name === "knowledge_search" && scope.knowledgeSpaceIds && scope.knowledgeSpaceIds.length > 0
          ? narrowSpaces(args, scope.knowledgeSpaceIds)
          : args
        return spec.run(caller, scoped).pipe(
          Effect.map((output): ToolAnswer => ({
            output,
            passages: spec.name === "knowledge_search" ? ((output.hits ?? []) as ReadonlyArray<KnowledgeHit>).map(hitPassage) : []
          })),
          Effect.mapError(refusalOf)
        )
      }
    })

    const graphExplore: AssistantTool = {
      name: "graph_explore",
      description: "Entities and relations of a knowledge space's graph (only spaces with graph retrieval on) that match q, with the chunk ids " +
        "behind each (read one with citation_excerpt). Everything answered is what you may read.",
      inputSchema: {
        type: "object",
        properties: {
          knowledgeSpaceId: { type: "string", format: "uuid", description: "The space whose graph to explore (a knowledge_search hit's knowledgeSpaceId)" },
          q: { type: "string", minLength: 1, maxLength: 500, description: "An entity's name or words of its description" },
          entityLimit: { type: "integer", minimum: 1, maximum: 50, description: "At most this many entities (default 10)" },
          maxDepth: { type: "integer", minimum: 0, maximum: 2, description: "Relations followed from the matches (default 1)" }
        },
        required: ["knowledgeSpaceId", "q"],
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.gen(function* () {
          const args = yield* decodeArguments(GraphArgs, input)
          const settings = yield* graphJobs.settings(caller, args.knowledgeSpaceId)
          if (!settings.retrievalEnabled) {
            return yield* Effect.fail<Refusal>({ code: "GRAPH_RETRIEVAL_DISABLED", detail: "Graph retrieval is off in this knowledge space" })
          }
          const explored = yield* explorer.explore(caller, args.knowledgeSpaceId, { q: args.q, entityLimit: args.entityLimit ?? 10, maxDepth: args.maxDepth ?? 1 })
          return {
            output: {
              knowledgeSpaceId: explored.knowledgeSpaceId,
              entities: explored.entities.map(({ governingEvidence: _, ...entity }) => entity),
              relations: explored.relations.map(({ governingEvidence: _, ...relation }) => relation),
              truncated: explored.truncated
            },
            passages: []
          } satisfies ToolAnswer
        }).pipe(Effect.mapError(refusalOf))
    }

    const filesSearch = (scope: ChatScope): AssistantTool => ({
      name: "conversation_files_search",
      description: "Searches the files attached to this chat and the documents bound to this conversation as evidence; each hit has a passage number to cite.",
      inputSchema: {
        type: "object",
        properties: {
          query: { type: "string", minLength: 1, maxLength: 1000, description: "A question or keywords" },
          limit: { type: "integer", minimum: 1, maximum: 10, description: "At most this many hits of each kind (default 4)" }
        },
        required: ["query"],
        additionalProperties: false
      },
      run: (caller, input) =>
        Effect.gen(function* () {
          const args = yield* decodeArguments(FilesArgs, input)
          const limit = args.limit ?? 4
          const attached = scope.fileIds.length === 0 ? [] : yield* files.passagesFor(caller, { fileIds: scope.fileIds, query: args.query, limit })
          const bound = yield* evidence.passagesFor(caller, scope.conversationId, args.query, limit)
          return filesOutput([...attached.map(filePassage), ...bound.map(knowledgePassage)])
        }).pipe(Effect.mapError(refusalOf))
    })

    return {
      /** The tools one chat offers its model. */
      forChat: (scope: ChatScope): ReadonlyArray<AssistantTool> => [
        ...shared.map((spec) => fromSpec(spec, scope)),
        ...(scope.graph ? [graphExplore] : []),
        filesSearch(scope)
      ],
      /** Whether graph_explore is offered to this caller. */
      graphOffered: (caller: Principal) => graphJobs.retrievalAnywhere(caller)
    }
  })
}) {}

/** knowledge_search arguments kept to the chat's spaces: those the model named among them, or all of them. */
const narrowSpaces = (args: unknown, allowed: ReadonlyArray<string>): unknown => {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args
  const named = (args as { knowledgeSpaceIds?: unknown }).knowledgeSpaceIds
  const kept = Array.isArray(named) ? named.filter((id) => typeof id === "string" && allowed.includes(id.toLowerCase())) : []
  return { ...args, knowledgeSpaceIds: kept.length > 0 ? kept : [...allowed] }
}
