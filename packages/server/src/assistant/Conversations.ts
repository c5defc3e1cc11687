import { Effect } from "effect"
import type { Principal } from "../domain/Principal"
import { KnowledgeSearch } from "../knowledge/Search"
import { CitationNotFound } from "../knowledge/Errors"
import { type CitationRow, ConversationsRepo } from "./ConversationsRepo"
import { AssistantFiles } from "./files/Files"
import { AssistantFileNotFound, FileChunkNotFound } from "./files/Errors"
import { WrongMessageRole } from "./Errors"
import { citationLinks } from "./Passages"
import { ModelOptions } from "./ModelOptions"
import { ownConversation, ownedChange, ownMessage } from "./Policy"

/** Conversations, their messages, the citations of answers and feedback: each only for the conversation's owner. */
export class Conversations extends Effect.Service<Conversations>()("lore/AssistantConversations", {
  effect: Effect.gen(function* () {
    const repo = yield* ConversationsRepo
    const knowledge = yield* KnowledgeSearch
    const modelOptions = yield* ModelOptions
    const files = yield* AssistantFiles

    const owned = (caller: Principal, conversationId: string) => Effect.flatMap(repo.owned(caller.userId, conversationId), ownConversation)
    const ownedMessage = (caller: Principal, messageId: string) => Effect.flatMap(repo.ownedMessage(caller.userId, messageId), ownMessage)

    /**
     * Whether the caller may open the cited passage now: the knowledge area's excerpt, through the access
     * evaluator; for a file, the caller's own file still holding that chunk (not deleted, expired or reprocessed).
     */
    const availableNow = (caller: Principal, citation: CitationRow) =>
      citation.kind === "FILE"
        ? files.chunk(caller, citation.sourceId, citation.citationId, citation.fileGeneration ?? undefined).pipe(
          Effect.as(true),
          Effect.catchIf((error): error is AssistantFileNotFound | FileChunkNotFound => error instanceof AssistantFileNotFound || error instanceof FileChunkNotFound, () => Effect.succeed(false))
        )
        : knowledge.excerpt(caller, citation.citationId).pipe(
          Effect.as(true),
          Effect.catchIf((error): error is CitationNotFound => error instanceof CitationNotFound, () => Effect.succeed(false))
        )

    return {
      list: (caller: Principal) =>
        Effect.map(repo.list(caller.userId), (rows) => rows.map(({ organizationId: _o, ownerUserId: _u, ...summary }) => summary)),

      rename: (caller: Principal, conversationId: string, title: string) => Effect.asVoid(Effect.flatMap(repo.rename(caller.userId, conversationId, title), ownedChange)),

      remove: (caller: Principal, conversationId: string) => Effect.asVoid(Effect.flatMap(repo.remove(caller.userId, conversationId), ownedChange)),

      messages: (caller: Principal, conversationId: string) =>
        Effect.gen(function* () {
          yield* owned(caller, conversationId)
          return (yield* repo.messages(conversationId)).map((message) => ({
            id: message.id, role: message.role, content: message.content, sequence: message.sequence, occurredAt: message.createdAt,
            status: message.status, provider: message.provider, model: message.model,
            ...(message.feedback ? { feedback: message.feedback } : {}),
            ...(message.parts ? { parts: JSON.parse(message.parts) as ReadonlyArray<{ readonly type: string }> } : {})
          }))
        }),

      setModel: (caller: Principal, conversationId: string, modelActivationId: string) =>
        Effect.gen(function* () {
          yield* owned(caller, conversationId)
          yield* modelOptions.require(caller, modelActivationId)
          yield* Effect.flatMap(repo.setModel(caller.userId, conversationId, modelActivationId), ownedChange)
        }),

      modelOptions: (caller: Principal, conversationId: string | undefined) =>
        Effect.gen(function* () {
          const stored = conversationId ? (yield* owned(caller, conversationId)).modelActivationId : null
          const all = yield* modelOptions.options(caller)
          return {
            selectedModelActivationId: modelOptions.selected(all, stored),
            options: all.map(({ gatewayId: _, ...option }) => option)
          }
        }),

      /**
       * The answer's citations, each evaluated for the caller now: a source they can no longer open shows
       * `available: false` and neither its title nor its heading or pages.
       */
      citations: (caller: Principal, messageId: string) =>
        Effect.gen(function* () {
          yield* ownedMessage(caller, messageId)
          const saved = yield* repo.citations(messageId)
          return yield* Effect.forEach(saved, (citation) =>
            Effect.map(availableNow(caller, citation), (available) => ({
              citationNumber: citation.citationNumber,
              kind: citation.kind,
              citationId: citation.citationId,
              sourceId: citation.sourceId,
              title: available ? citation.title : null,
              heading: available ? citation.heading : null,
              startPage: available ? citation.startPage : null,
              endPage: available ? citation.endPage : null,
              available,
              ...citationLinks(citation)
            })))
        }),

      setFeedback: (caller: Principal, messageId: string, input: { readonly sentiment: "HELPFUL" | "UNHELPFUL"; readonly comment?: string | undefined }) =>
        Effect.gen(function* () {
          const message = yield* ownedMessage(caller, messageId)
          if (message.role !== "ASSISTANT") return yield* new WrongMessageRole({ detail: "Feedback is given on the assistant's answers, not on your own messages" })
          return yield* repo.setFeedback(messageId, caller.userId, input.sentiment, input.comment ?? null)
        }),

      deleteFeedback: (caller: Principal, messageId: string) =>
        Effect.gen(function* () {
          yield* ownedMessage(caller, messageId)
          yield* repo.deleteFeedback(messageId)
        })
    }
  }),
  dependencies: [ConversationsRepo.Default, ModelOptions.Default]
}) {}
