import { SqlClient } from "@effect/sql"
import { Cause, Effect, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { ChatMessage } from "../ai/ChatWire"
import { NOTHING_RELEVANT, type Passage } from "../ai/LocalModel"
import { localModels } from "../ai/Presets"
import { type ModelChoice, Models, type ProviderInfo } from "../ai/Models"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { type ChatRequest, MAX_MESSAGE_CHARS } from "./Api"
import { citationNumbering, titleFrom } from "./CitationNumbering"
import { type CitationRow, ConversationsRepo, type MessageRow } from "./ConversationsRepo"
import { InvalidChatRequest } from "./Errors"
import { Evidence as ConversationEvidence } from "./Evidence"
import { type AnswerPiece, failureCode, localChoice, withLocalFallback } from "./ModelFallback"
import { ModelOptions } from "./ModelOptions"
import { AssistantFiles } from "./Files"
import { type ChatPassage, citationLinks, citationOf, filePassage, knowledgePassage } from "./Passages"
import { RateLimits } from "./RateLimits"
import { Retrieval } from "./Retrieval"
import { ownConversation } from "./Policy"
import { SSE_DONE, sseEvent, type StreamedCitation, type UiMessageChunk } from "./UiMessageStream"
import { UUID_PATTERN } from "../domain/Schemas"

/** Passages an answer is given. */
const PASSAGE_LIMIT = 6
/** Passages of attached files, at most: half the answer's passages, so the knowledge base still has room. */
const FILE_PASSAGE_LIMIT = 3
/** Earlier messages a follow-up is answered with (and its search planned with). */
const HISTORY_MESSAGES = 6


/** The question of a chat body: `message`, or the text of the last user message the `ai` package's transport sent. */
const questionOf = (body: ChatRequest) => {
  if (body.message !== undefined) return body.message
  const last = [...(body.messages ?? [])].reverse().find((message: any) => message?.role === "user") as any
  const parts: ReadonlyArray<any> = Array.isArray(last?.parts) ? last.parts : []
  const text = parts.filter((part) => part?.type === "text" && typeof part.text === "string").map((part) => part.text).join("\n")
  return text || (typeof last?.content === "string" ? last.content : "")
}

export const streamedCitation = (citation: CitationRow): StreamedCitation => ({
  citationNumber: citation.citationNumber,
  kind: citation.kind,
  citationId: citation.citationId,
  sourceId: citation.sourceId,
  title: citation.title,
  heading: citation.heading,
  startPage: citation.startPage,
  endPage: citation.endPage,
  available: true,
  ...citationLinks(citation)
})

/** What a message records as its author: LOCAL, or the gateway's key. */
const providerName = (provider: ProviderInfo) => (provider.protocol === "LOCAL" ? "LOCAL" : provider.gatewayKey)

const SYSTEM_PROMPT = "You are Lore's assistant. Answer only from the numbered passages below. Cite every claim with the number of the passage " +
  "it comes from in square brackets, like [1]; cite nothing else. If the passages do not answer the question, say plainly that nothing " +
  "relevant was found."

/**
 * The assistant's chat: plans the search (KEYWORD_PLANNING, a follow-up with its conversation's last question),
 * retrieves through knowledge search (the access evaluator), answers with the conversation's model (or the
 * ASSISTANT_CHAT route, LOCAL by default) and streams in the UI Message Stream protocol. The model call runs
 * inside the response stream and the save in its finalizer: a client that disconnects interrupts the call,
 * and the partial answer is saved as INTERRUPTED.
 */
export class Chat extends Effect.Service<Chat>()("lore/AssistantChat", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* ConversationsRepo
    const retrieval = yield* Retrieval
    const models = yield* Models
    const modelOptions = yield* ModelOptions
    const conversationEvidence = yield* ConversationEvidence
    const files = yield* AssistantFiles
    const rateLimits = yield* RateLimits

    /** The search terms: the planner's keywords; the question itself when planning fails (search still runs). */
    const plan = (caller: Principal, question: string, history: ReadonlyArray<MessageRow>) => {
      const previous = [...history].reverse().find((message) => message.role === "USER")?.content
      const planned = previous ? `${previous}\n${question}` : question
      return models.planKeywords(caller, planned).pipe(
        Effect.map((result) => (result.keywords.length > 0 ? result.keywords.join(" ") : planned)),
        Effect.catchAll((error) => Effect.as(Effect.logWarning("keyword planning failed; searching with the question").pipe(Effect.annotateLogs({ code: error.code })), planned))
      )
    }

    /** Everything before the stream: 4xx problems here are problem+json. */
    const prepare = (caller: Principal, body: ChatRequest) =>
      Effect.gen(function* () {
        const question = questionOf(body).trim()
        if (question.length === 0) {
          return yield* new InvalidChatRequest({ detail: "The question is empty: send a non-empty `message` (or a user message with text)", errors: [{ path: "message", message: "must not be empty" }] })
        }
        if (question.length > MAX_MESSAGE_CHARS) {
          return yield* new InvalidChatRequest({ detail: `The question is longer than ${MAX_MESSAGE_CHARS} characters`, errors: [{ path: "message", message: `at most ${MAX_MESSAGE_CHARS} characters` }] })
        }
        yield* rateLimits.consume(caller, "chat")
        // Attached files are checked (the caller's own, READY) before anything is recorded; their passages
        // are ranked against the question itself.
        const attached = body.fileIds && body.fileIds.length > 0
          ? (yield* files.passagesFor(caller, { fileIds: body.fileIds, query: question, limit: FILE_PASSAGE_LIMIT })).map(filePassage)
          : []
        const requested = body.modelActivationId ? yield* modelOptions.require(caller, body.modelActivationId) : undefined
        const continued = body.conversationId ?? (body.id && UUID_PATTERN.test(body.id) && (yield* repo.owned(caller.userId, body.id)) ? body.id : undefined)
        const { conversation, history } = yield* transaction(Effect.gen(function* () {
          if (continued) {
            const conversation = yield* ownConversation(yield* repo.owned(caller.userId, continued, true))
            const history = yield* repo.recentMessages(conversation.id, HISTORY_MESSAGES)
            if (body.modelActivationId) yield* repo.setModel(caller.userId, conversation.id, body.modelActivationId)
            yield* repo.appendUserMessage(conversation.id, question)
            return { conversation: { ...conversation, modelActivationId: body.modelActivationId ?? conversation.modelActivationId }, history }
          }
          const conversation = yield* repo.create(caller.organizationId, caller.userId, titleFrom(question), body.modelActivationId ?? null)
          yield* repo.appendUserMessage(conversation.id, question)
          return { conversation, history: [] as ReadonlyArray<MessageRow> }
        }))
        // The default option or no stored choice: the ASSISTANT_CHAT route, resolved by the model layer itself.
        const choice = requested
          ? (requested.defaultChoice ? undefined : { gatewayId: requested.gatewayId, modelId: requested.modelId })
          : conversation.modelActivationId ? yield* modelOptions.choiceFor(caller, conversation.modelActivationId) : undefined
        return { question, conversationId: conversation.id, history, choice, attached, messageId: randomUUID() }
      })

    /** The response body: the protocol's chunks as server-sent events, ending with [DONE]. */
    const respond = (caller: Principal, body: ChatRequest, turn: Effect.Effect.Success<ReturnType<typeof prepare>>) =>
      Stream.unwrapScoped(Effect.gen(function* () {
        const { question, conversationId, history, choice, attached, messageId } = turn
        const textId = `${messageId}-text`
        const state = {
          text: "",
          provider: undefined as ProviderInfo | undefined,
          evidence: [] as ReadonlyArray<ChatPassage>,
          numbering: citationNumbering(0),
          /** The status the answer was saved with, once a save has started. */
          saved: undefined as "COMPLETE" | "INTERRUPTED" | "FAILED" | undefined,
          /** Set when the stream's last chunk was handed to the response: a later interruption cut nothing. */
          delivered: false
        }
        const citations = () => state.numbering.used().flatMap((position, index) => {
          const evidence = state.evidence[position - 1]
          return evidence ? [citationOf(evidence, index + 1)] : []
        })
        // A save, once started, finishes: a client that hangs up while the answer is being saved (the LOCAL
        // answerer gets there within milliseconds) would otherwise roll it back and leave only the question.
        const save = (status: "COMPLETE" | "INTERRUPTED" | "FAILED") =>
          Effect.uninterruptible(Effect.suspend(() => {
            if (state.saved) return Effect.succeed(citations())
            state.saved = status
            const cited = citations()
            return transaction(Effect.gen(function* () {
              // A conversation deleted while its answer streamed keeps nothing.
              if (!(yield* repo.owned(caller.userId, conversationId, true))) return
              yield* repo.appendAssistantMessage({
                id: messageId, conversationId, content: state.text, status, citations: cited,
                provider: state.provider ? providerName(state.provider) : null, model: state.provider?.modelId ?? null
              })
            })).pipe(Effect.as(cited))
          }))
        // Runs however the stream ends: completed (already saved), failed, or the client gone (interrupted). A
        // client gone after the COMPLETE save but before the stream's end did not get the whole answer: INTERRUPTED.
        yield* Effect.addFinalizer((exit) => {
          if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) return Effect.ignoreLogged(save("FAILED"))
          if (exit._tag === "Success" || state.delivered) return Effect.void
          return Effect.ignoreLogged(state.saved === "COMPLETE" ? transaction(repo.markInterrupted(messageId)) : save("INTERRUPTED"))
        })

        // text-start goes out with the first delta, so that a MODEL_FALLBACK notice can come before it.
        let textStarted = false
        const startText = (): ReadonlyArray<UiMessageChunk> => (textStarted ? [] : ((textStarted = true), [{ type: "text-start", id: textId }]))
        const emit = (delta: string): ReadonlyArray<UiMessageChunk> => {
          if (delta.length === 0) return []
          state.text += delta
          return [...startText(), { type: "text-delta", id: textId, delta }]
        }

        const answer = Stream.unwrap(Effect.gen(function* () {
          const query = yield* plan(caller, question, history)
          const general = (yield* retrieval.passages(caller, query, body.knowledgeSpaceIds, PASSAGE_LIMIT)).evidence
          // The caller's attached files first, then documents bound to this conversation as evidence (a new
          // conversation has none yet), then the knowledge base.
          const bound = history.length === 0 ? [] : yield* conversationEvidence.passagesFor(caller, conversationId, query, Math.ceil(PASSAGE_LIMIT / 2))
          const boundIds = new Set(bound.map((passage) => passage.citationId))
          state.evidence = [...attached, ...[...bound, ...general.filter((passage) => !boundIds.has(passage.citationId))].map(knowledgePassage)].slice(0, PASSAGE_LIMIT)
          state.numbering = citationNumbering(state.evidence.length)
          const modelText = (answerer: ModelChoice | undefined) => Effect.map(
              models.stream(caller, "ASSISTANT_CHAT", {
                messages: [
                  { role: "system", content: `${SYSTEM_PROMPT}\n\n${state.evidence.map((evidence, index) => `[${index + 1}] ${evidence.title}\n${evidence.content}`).join("\n\n")}` },
                  ...history.map((message): ChatMessage => ({ role: message.role === "USER" ? "user" : "assistant", content: message.content })),
                  { role: "user", content: question }
                ]
              }, state.evidence.map((evidence): Passage => ({ id: evidence.citationId, title: evidence.title, text: evidence.content })), answerer),
              ({ provider, chunks }) => {
                state.provider = provider
                return chunks.pipe(Stream.filterMap((chunk) => (chunk._tag === "text" ? Option.some(chunk.text) : Option.none())))
              }
            )
          const pieces: Stream.Stream<AnswerPiece, unknown> = state.evidence.length === 0
            // Nothing the caller may read matched: an honest answer, without asking a model to invent one.
            ? (state.provider = { gatewayId: "local", gatewayKey: "local", modelId: localModels.ASSISTANT_CHAT.modelId, protocol: "LOCAL", source: "DEFAULT" }, Stream.make<[AnswerPiece]>({ _tag: "text", text: NOTHING_RELEVANT }))
            : withLocalFallback(Stream.unwrap(modelText(choice)), modelText(localChoice))
          return pieces.pipe(
            Stream.map((piece): ReadonlyArray<UiMessageChunk> =>
              piece._tag === "notice" ? [{ type: "data-notice", data: { code: piece.code, message: piece.message } }] : emit(state.numbering.push(piece.text))),
            Stream.concat(Stream.sync((): ReadonlyArray<UiMessageChunk> => [...emit(state.numbering.flush()), ...startText(), { type: "text-end", id: textId }])),
            Stream.flattenIterables
          )
        }))

        const ending = Stream.fromEffect(save("COMPLETE")).pipe(Stream.flatMap((cited) => Stream.fromIterable<UiMessageChunk>([
          ...cited.map((citation): UiMessageChunk => ({
            type: "source-document", sourceId: citation.sourceId, title: citation.title,
            mediaType: state.evidence.find((evidence) => evidence.citationId === citation.citationId)?.mediaType ?? "text/plain"
          })),
          { type: "data-citations", data: { citations: cited.map(streamedCitation) } },
          { type: "finish", finishReason: "stop", messageMetadata: { provider: state.provider ? providerName(state.provider) : "LOCAL", model: state.provider?.modelId ?? localModels.ASSISTANT_CHAT.modelId } }
        ])))

        const failed = (cause: Cause.Cause<unknown>): Stream.Stream<UiMessageChunk> =>
          Stream.fromEffect(Effect.gen(function* () {
            yield* Effect.logWarning("chat answer failed").pipe(Effect.annotateLogs({ conversationId, messageId, cause: Cause.pretty(cause) }))
            yield* Effect.ignoreLogged(save("FAILED"))
            // The code only: a provider's message may carry its raw response, which is for the log, not the employee.
            const failure = Cause.failureOption(cause)
            const reason = failure._tag === "Some"
              ? `The model call failed (${failureCode(failure.value)}); the partial answer was saved`
              : "The answer failed; the partial answer was saved"
            return { type: "error", errorText: reason } satisfies UiMessageChunk
          }))

        const opening: ReadonlyArray<UiMessageChunk> = [{ type: "start", messageId }, { type: "data-conversation", data: { conversationId } }]
        return Stream.fromIterable(opening).pipe(
          Stream.concat(Stream.concat(answer, ending).pipe(
            Stream.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Stream.failCause(cause) : failed(cause)))
          )),
          Stream.map(sseEvent),
          Stream.concat(Stream.sync(() => ((state.delivered = true), SSE_DONE)))
        )
      }))

    return {
      /** Validates and records the question (errors here are problem+json), then answers the stream to send. */
      chat: (caller: Principal, body: ChatRequest) => Effect.map(prepare(caller, body), (turn) => ({ turn, body: respond(caller, body, turn) }))
    }
  }),
  dependencies: [ConversationsRepo.Default, ModelOptions.Default, Retrieval.Default]
}) {}
