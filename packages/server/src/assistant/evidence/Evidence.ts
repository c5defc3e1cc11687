import { Effect } from "effect"
import type { Classification } from "../../domain/Model"
import type { Principal } from "../../domain/Principal"
import { transactional } from "../../db/Sql"
import { SqlClient } from "@effect/sql"
import { SourceNotFound } from "../../knowledge/Errors"
import { KnowledgeSearch } from "../../knowledge/Search"
import { Sources, type UploadedFile } from "../../knowledge/Sources"
import { ConversationsRepo } from "../ConversationsRepo"
import { EvidenceBindingNotFound } from "./Errors"
import { type BindingRow, EvidenceRepo } from "./Repo"
import { ownConversation } from "../Policy"
import { RateLimits } from "../RateLimits"
import { titleFrom } from "../CitationNumbering"

/** A passage of evidence: exactly what knowledge search (and so the chat's retrieval) returns per passage. */
export type EvidencePassage = Effect.Effect.Success<ReturnType<KnowledgeSearch["search"]>>["evidence"][number]

export type EvidenceStatus = "PROCESSING" | "READY" | "FAILED" | "UNAVAILABLE"

/** What the knowledge area says about the bound source, as the caller may see it now. */
interface SourceState {
  readonly status: string
  readonly failureCode: string | null
  readonly failureMessage: string | null
}

/**
 * The binding's status, derived from its source's ingestion: PROCESSING, READY, ATTENTION -> FAILED (with the
 * source's failure code); a source the caller can no longer see (deleted, or their access changed) is
 * UNAVAILABLE, and nothing more about it is said.
 */
const statusOf = (source: SourceState | undefined): { status: EvidenceStatus; failureCode: string | null; failureMessage: string | null } => {
  if (source === undefined) return { status: "UNAVAILABLE", failureCode: null, failureMessage: null }
  switch (source.status) {
    case "PROCESSING":
    case "READY":
      return { status: source.status, failureCode: null, failureMessage: null }
    case "ATTENTION":
      return { status: "FAILED", failureCode: source.failureCode ?? "PROCESSING_FAILED", failureMessage: source.failureMessage }
    default:
      return { status: "UNAVAILABLE", failureCode: null, failureMessage: null }
  }
}

const describe = (binding: BindingRow, source: SourceState | undefined) => ({
  id: binding.id,
  conversationId: binding.conversationId,
  knowledgeSpaceId: binding.knowledgeSpaceId,
  // An upload is its own raw source object and revision (the knowledge area's source id, see Sources.remove).
  sourceObjectId: binding.sourceId,
  sourceRevisionId: binding.sourceId,
  knowledgeAssetId: binding.knowledgeAssetId,
  title: binding.title,
  fileName: binding.fileName,
  ...statusOf(source),
  createdAt: binding.createdAt
})

/**
 * Evidence bound to a conversation: the document is uploaded as an ordinary knowledge source through the
 * knowledge area's Sources service (its contributor and clearance checks, its ingestion, its access rules),
 * and the binding records which conversation it is evidence for. See docs/decisions.md, "Conversation evidence".
 */
export class Evidence extends Effect.Service<Evidence>()("lore/AssistantEvidence", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = transactional(sql)
    const repo = yield* EvidenceRepo
    const conversations = yield* ConversationsRepo
    const sources = yield* Sources
    const knowledge = yield* KnowledgeSearch
    const rateLimits = yield* RateLimits

    /** The source as the caller may see it now (through the access evaluator), or undefined. */
    const sourceSeenBy = (caller: Principal, sourceId: string) =>
      sources.get(caller, sourceId).pipe(
        Effect.map((source): SourceState | undefined => source),
        Effect.catchIf((error): error is SourceNotFound => error instanceof SourceNotFound, () => Effect.succeed(undefined))
      )

    const ownedConversation = (caller: Principal, conversationId: string, lock = false) =>
      Effect.flatMap(conversations.owned(caller.userId, conversationId, lock), ownConversation)

    const upload = (
      caller: Principal,
      input: { readonly conversationId?: string | undefined; readonly knowledgeSpaceId: string; readonly classification: Classification },
      file: UploadedFile
    ) =>
      Effect.gen(function* () {
        // Fail fast (and without spending an upload token) on a conversation that is not the caller's.
        if (input.conversationId !== undefined) yield* ownedConversation(caller, input.conversationId)
        yield* rateLimits.consume(caller, "fileUpload")
        return yield* transaction(
          Effect.gen(function* () {
            // Locked, so a conversation deleted meanwhile cannot leave a binding behind (or fail on the foreign key).
            // Without one, the upload starts a conversation of its own, titled with the file name (rolled back
            // with the upload if the upload is refused).
            const conversation = input.conversationId !== undefined
              ? yield* ownedConversation(caller, input.conversationId, true)
              : yield* conversations.create(caller.organizationId, caller.userId, titleFrom(file.name) || "Evidence", null)
            const source = yield* sources.upload(caller, { knowledgeSpaceId: input.knowledgeSpaceId, classification: input.classification }, file)
            const binding = yield* repo.bind({
              organizationId: conversation.organizationId,
              conversationId: conversation.id,
              boundBy: caller.userId,
              sourceId: source.id,
              knowledgeAssetId: source.knowledgeAssetId,
              knowledgeSpaceId: source.knowledgeSpaceId,
              title: source.title,
              fileName: file.name
            })
            return describe(binding, source)
          })
        )
      })

    const list = (caller: Principal, conversationId: string) =>
      Effect.gen(function* () {
        yield* ownedConversation(caller, conversationId)
        const bindings = yield* repo.inConversation(caller.userId, conversationId)
        return yield* Effect.forEach(bindings, (binding) => Effect.map(sourceSeenBy(caller, binding.sourceId), (source) => describe(binding, source)))
      })

    const get = (caller: Principal, conversationId: string, bindingId: string) =>
      Effect.gen(function* () {
        yield* ownedConversation(caller, conversationId)
        const binding = yield* repo.owned(caller.userId, conversationId, bindingId)
        if (!binding) return yield* new EvidenceBindingNotFound({ detail: "No evidence with this id in this conversation" })
        return describe(binding, yield* sourceSeenBy(caller, binding.sourceId))
      })

    /**
     * The best passages of the conversation's evidence for a query, ranked by knowledge search restricted to
     * the bound sources: only READY (searchable) sources the caller may still read, filtered inside the
     * search's SQL by the access evaluator like every other passage. The shape is the chat retrieval's, so
     * the chat can merge these with its other passages.
     */
    /** The passages of the sources bound to a conversation (their ids, as the chat's follow-up statement read them) that match. */
    const boundPassages = (caller: Principal, sourceIds: ReadonlyArray<string>, query: string, limit: number) =>
      sourceIds.length === 0 || query.trim() === ""
        ? Effect.succeed([] as ReadonlyArray<EvidencePassage>)
        : Effect.map(knowledge.search(caller, { q: query, limit: Math.max(1, limit), sourceIds }), (result) => result.evidence as ReadonlyArray<EvidencePassage>)

    const passagesFor = (caller: Principal, conversationId: string, query: string, limit: number, ownershipChecked = false) =>
      Effect.gen(function* () {
        // The chat checked ownership when it recorded the question; the bindings query is by owner too.
        if (!ownershipChecked) yield* ownedConversation(caller, conversationId)
        const bindings = yield* repo.inConversation(caller.userId, conversationId)
        return yield* boundPassages(caller, bindings.map((b) => b.sourceId), query, limit)
      })

    return { upload, list, get, passagesFor, boundPassages }
  }),
  dependencies: [EvidenceRepo.Default, ConversationsRepo.Default]
}) {}
