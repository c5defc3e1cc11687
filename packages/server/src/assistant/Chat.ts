import { Cause, Chunk, Clock, Effect, Either, Fiber, Option, Stream } from "effect"
import { randomUUID } from "node:crypto"
import type { ChatMessage, ChatRequest as ChatRequest_ } from "../ai/ChatTypes"
import { NOTHING_RELEVANT, type Passage, salientTerms } from "../ai/LocalModel"
import { localModels } from "../ai/Presets"
import { LOCAL_GATEWAY_ID } from "../ai/Model"
import { type ModelChoice, Models, type ProviderInfo } from "../ai/Models"
import { Settings } from "../Config"
import { type SharedReadScopes, withReadScopes } from "../access/Evaluator"
import { heldUsage, Usage, type UsageRecord } from "../ai/Usage"
import { type SharedAiConfig, withAiConfig } from "../ai/ConfigCache"
import type { Principal } from "../domain/Principal"
import { type ChatRequest, MAX_MESSAGE_CHARS } from "./Api"
import { citationNumbering, titleFrom } from "./CitationNumbering"
import { type CitationRow, ConversationsRepo, type HistoryMessage } from "./ConversationsRepo"
import { InvalidChatRequest } from "./Errors"
import { Evidence as ConversationEvidence } from "./evidence/Evidence"
import { failureCode, localChoice } from "./ModelFallback"
import { ModelOptions } from "./ModelOptions"
import { AssistantFiles } from "./files/Files"
import { citationLinks, citationOf, filePassage, knowledgePassage } from "./Passages"
import { RateLimits } from "./RateLimits"
import { Retrieval } from "./Retrieval"
import { ownConversation } from "./Policy"
import { sseBody, type StreamedCitation, type UiMessageChunk, uiPartsReducer } from "./UiMessageStream"
import { passageLedger } from "./tools/Ledger"
import { type LoopContext, modelSteps, type PlannedCall, plannedStep, type StepChunk, type ToolCallingModel, type TurnState } from "./tools/Loop"
import { AssistantTools, filesOutput, searchOutput } from "./tools/ToolSet"
import { UUID_PATTERN } from "../domain/Schemas"

/** Passages an answer is given. */
const PASSAGE_LIMIT = 6
/** Passages of attached files, at most: half the answer's passages, so the knowledge base still has room. */
const FILE_PASSAGE_LIMIT = 3
/** Earlier messages a follow-up is answered with (and its search planned with). */
const HISTORY_MESSAGES = 6
/** Offline, a first search that finds fewer passages than this is followed by a second one. */
const ENOUGH_PASSAGES = 2


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

const TOOL_SYSTEM_PROMPT = "You are Lore's assistant. Answer from what the tools return: knowledge_search finds passages of the documents the user " +
  "may read, citation_excerpt reads around one, and the asset tools open released prompt templates and work instructions. Each passage " +
  "a tool returns has a `passage` number: cite every claim with it in square brackets, like [1]; cite nothing else. Search again with " +
  "other words when the passages do not answer. If nothing relevant is found, say so plainly."

/**
 * The planner's second search when the first found too little: the question by itself when the first searched
 * a follow-up with its conversation's last question (or the planner's keywords), when its terms differ.
 */
const secondQuery = (question: string, first: string) => {
  const terms = (text: string) => [...salientTerms(text)].sort().join(" ")
  return terms(question) !== terms(first) && terms(question).length > 0 ? question : undefined
}

/** The honest final step when nothing the caller may read matched: LOCAL's answer, no model asked. */
const nothingRelevant = (state: TurnState, messageId: string, emit: LoopContext["emit"]) =>
  Effect.suspend(() => {
    state.steps++
    state.provider = { gatewayId: LOCAL_GATEWAY_ID, gatewayKey: "local", modelId: localModels.ASSISTANT_CHAT.modelId, protocol: "LOCAL", source: "DEFAULT" }
    state.numbering.startText()
    state.text = NOTHING_RELEVANT
    const id = `${messageId}-text-${state.steps}`
    return emit([{ type: "start-step" }, { type: "text-start", id }, { type: "text-delta", id, delta: NOTHING_RELEVANT }, { type: "text-end", id }, { type: "finish-step" }])
  })

const SYSTEM_PROMPT = "You are Lore's assistant. Answer only from the numbered passages below. Cite every claim with the number of the passage " +
  "it comes from in square brackets, like [1]; cite nothing else. If the passages do not answer the question, say plainly that nothing " +
  "relevant was found."

/**
 * The assistant's chat: plans the search (KEYWORD_PLANNING, a follow-up with its conversation's last question)
 * and runs it as the first step, then answers: a model with tool calling continues in the bounded tool loop
 * (tools/Loop.ts, the MCP tools' specs, every call as the caller), a model without gets the numbered passages,
 * LOCAL quotes them. Everything streams in the UI Message Stream protocol, steps as tool parts. The model calls
 * run inside the response stream and the save in its finalizer: a client that disconnects interrupts the loop,
 * and what was said is saved as INTERRUPTED with its steps. A model call that fails before its first text or
 * tool call is answered by LOCAL instead, after a MODEL_FALLBACK notice.
 */
export class Chat extends Effect.Service<Chat>()("lore/AssistantChat", {
  effect: Effect.gen(function* () {
    const repo = yield* ConversationsRepo
    const retrieval = yield* Retrieval
    const models = yield* Models
    const modelOptions = yield* ModelOptions
    const conversationEvidence = yield* ConversationEvidence
    const files = yield* AssistantFiles
    const rateLimits = yield* RateLimits
    const assistantTools = yield* AssistantTools
    const settings = yield* Settings
    const usage = yield* Usage

    /** The search terms: the planner's keywords; the question itself when planning fails (search still runs). */
    const plan = (caller: Principal, question: string, history: ReadonlyArray<HistoryMessage>) => {
      const previous = [...history].reverse().find((message) => message.role === "USER")?.content
      const planned = previous ? `${previous}\n${question}` : question
      return models.planKeywords(caller, planned).pipe(
        Effect.map((result) => (result.keywords.length > 0 ? result.keywords.join(" ") : planned)),
        Effect.catchAll((error) => Effect.as(Effect.logWarning("keyword planning failed; searching with the question").pipe(Effect.annotateLogs({ code: error.code })), planned))
      )
    }

    /** Everything before the stream: 4xx problems here are problem+json. */
    const prepare = (caller: Principal, body: ChatRequest) => {
      // One AI configuration for the whole chat (planning, the model options, the answering model): see SharedAiConfig.
      const aiConfig: SharedAiConfig = new Map()
      return withAiConfig(aiConfig)(Effect.gen(function* () {
        const question = questionOf(body).trim()
        if (question.length === 0) {
          return yield* new InvalidChatRequest({ detail: "The question is empty: send a non-empty `message` (or a user message with text)", errors: [{ path: "message", message: "must not be empty" }] })
        }
        if (question.length > MAX_MESSAGE_CHARS) {
          return yield* new InvalidChatRequest({ detail: `The question is longer than ${MAX_MESSAGE_CHARS} characters`, errors: [{ path: "message", message: `at most ${MAX_MESSAGE_CHARS} characters` }] })
        }
        // Attached files are checked (the caller's own, READY) before anything is recorded; their passages
        // are ranked against the question itself.
        const attached = body.fileIds && body.fileIds.length > 0
          ? (yield* files.passagesFor(caller, { fileIds: body.fileIds, query: question, limit: FILE_PASSAGE_LIMIT })).map(filePassage)
          : []
        const requested = body.modelActivationId ? yield* modelOptions.require(caller, body.modelActivationId) : undefined
        // One read scope for the whole chat (planning, searches, graph retrieval, tool calls), and the usage rows
        // of its model calls held until the answer is saved: neither costs the first token a statement.
        const scopes: SharedReadScopes = new Map()
        const usageRows: Array<UsageRecord> = []
        const candidate = body.conversationId ?? (body.id && UUID_PATTERN.test(body.id) ? body.id : undefined)
        // A new conversation's first search needs nothing its statement answers: it starts now, beside the statement
        // (interrupted when the chat is refused, joined by the answer's first step).
        const early = candidate === undefined
          ? yield* Effect.forkDaemon(firstSearch(caller, body, question, []).pipe(withReadScopes(scopes), Effect.locally(heldUsage, Option.some(usageRows))))
          : undefined
        const recorded = yield* record(caller, body, question, candidate).pipe(Effect.onError(() => (early ? Fiber.interrupt(early) : Effect.void)))
        // The default option or no stored choice: the ASSISTANT_CHAT route, resolved by the model layer itself.
        const { choice, toolCalling } = requested
          ? { choice: requested.defaultChoice ? undefined : { gatewayId: requested.gatewayId, modelId: requested.modelId }, toolCalling: requested.toolCalling }
          : yield* modelOptions.choiceFor(caller, recorded.modelActivationId)
        return { question, ...recorded, choice, toolCalling, attached, messageId: randomUUID(), scopes, aiConfig, usageRows, early }
      }))
    }

    /**
     * The question recorded in one statement with the caller's rate-limit token: a follow-up (ownership, the
     * question, the history, the bound evidence), or a new conversation. `id` (the `ai` transport's chat id)
     * continues the caller's conversation of that id, or starts a new one.
     */
    const record = (caller: Principal, body: ChatRequest, question: string, candidate: string | undefined) =>
      Effect.gen(function* () {
        let token = rateLimits.tokenStatement(caller, "chat")
        if (candidate) {
          const followUp = yield* repo.continueWithQuestion(token, caller.userId, candidate, body.modelActivationId ?? null, question, HISTORY_MESSAGES)
          if (!followUp.taken) return yield* rateLimits.refuse(caller, "chat")
          if (followUp.id !== null) {
            return { conversationId: followUp.id, modelActivationId: followUp.modelActivationId, history: followUp.history, evidenceSourceIds: followUp.evidenceSourceIds }
          }
          if (body.conversationId) return yield* ownConversation<never>(undefined)
          token = rateLimits.taken
        }
        const created = yield* repo.createWithQuestion(token, randomUUID(), caller.organizationId, caller.userId, titleFrom(question), body.modelActivationId ?? null, question)
        if (!created) return yield* rateLimits.refuse(caller, "chat")
        return { conversationId: created.id, modelActivationId: created.modelActivationId, history: [] as ReadonlyArray<HistoryMessage>, evidenceSourceIds: [] as ReadonlyArray<string> }
      })

    /** The first search: planned (a follow-up with its conversation's last question), then knowledge search and graph retrieval. */
    const firstSearch = (caller: Principal, body: ChatRequest, question: string, history: ReadonlyArray<HistoryMessage>) =>
      Effect.flatMap(plan(caller, question, history), (query) =>
        Effect.map(Effect.either(retrieval.passages(caller, query, body.knowledgeSpaceIds, PASSAGE_LIMIT)), (found) => ({ query, found })))

    type Turn = Effect.Effect.Success<ReturnType<typeof prepare>>
    type Found = ReturnType<Retrieval["passages"]>

    /** The planner's first step: the conversation's files and evidence (when there are any), then knowledge search. */
    const firstCalls = (caller: Principal, body: ChatRequest, turn: Turn, query: string, found?: Found) =>
      Effect.gen(function* () {
        // The caller's attached files first, then documents bound to this conversation as evidence (a new
        // conversation has none yet), then the knowledge base.
        const bound = yield* conversationEvidence.boundPassages(caller, turn.evidenceSourceIds, query, Math.ceil(PASSAGE_LIMIT / 2))
        const files = [...turn.attached, ...bound.map(knowledgePassage)]
        const boundIds = new Set(bound.map((passage) => passage.citationId))
        const room = Math.max(0, PASSAGE_LIMIT - files.length)
        const calls: Array<PlannedCall> = []
        if (files.length > 0) calls.push({ toolName: "conversation_files_search", input: { query }, run: Effect.succeed(filesOutput(files)) })
        if (room > 0) calls.push(searchCall(caller, body, query, room, boundIds, found))
        return calls
      })

    /** A knowledge search step; `found`, its passages when the search already ran (a new conversation's, early). */
    const searchCall = (caller: Principal, body: ChatRequest, query: string, limit: number, skip: ReadonlySet<string> = new Set(), found?: Found): PlannedCall => ({
      toolName: "knowledge_search",
      answered: found !== undefined,
      input: { query, limit, ...(body.knowledgeSpaceIds && body.knowledgeSpaceIds.length > 0 ? { knowledgeSpaceIds: body.knowledgeSpaceIds } : {}) },
      run: (found ?? retrieval.passages(caller, query, body.knowledgeSpaceIds, PASSAGE_LIMIT)).pipe(
        Effect.map((found) => searchOutput(found.evidence.filter((passage) => !skip.has(passage.citationId)).slice(0, limit))),
        Effect.mapError((error: any) => ({ code: typeof error?.code === "string" ? error.code : "SEARCH_FAILED", detail: typeof error?.detail === "string" ? error.detail : "The search failed" }))
      )
    })

    /**
     * The response body, and the turn that feeds it: a fiber of its own, started now, that sends the protocol's
     * chunks into the body as it makes them (`sseBody`) and saves the answer however it ends. One program pushing
     * its parts, rather than an Effect Stream composed of the turn's steps: each step of such a stream cost a few
     * hundred runtime operations before the first token (docs/decisions.md, "A chat's turn as one program").
     */
    const respond = (caller: Principal, body: ChatRequest, turn: Turn) =>
      Effect.gen(function* () {
        const { question, conversationId, history, choice, messageId } = turn
        const ledger = passageLedger()
        const state: TurnState & { saved: "COMPLETE" | "INTERRUPTED" | "FAILED" | undefined; delivered: boolean } = {
          text: "",
          provider: undefined,
          tokens: 0,
          steps: 0,
          numbering: citationNumbering(() => ledger.count()),
          ledger,
          /** The status the answer was saved with, once a save has started. */
          saved: undefined as "COMPLETE" | "INTERRUPTED" | "FAILED" | undefined,
          /** Set when the body's last chunk was handed to the response: a later interruption cut nothing. */
          delivered: false
        }
        const parts = uiPartsReducer()
        const sink = sseBody()
        // The opening goes out with the first step's parts: one write.
        let opening: ReadonlyArray<UiMessageChunk> | undefined = [{ type: "start", messageId }, { type: "data-conversation", data: { conversationId } }]
        const send = (chunks: ReadonlyArray<UiMessageChunk>) => {
          const all = opening ? [...opening, ...chunks] : chunks
          opening = undefined
          return sink.send(all)
        }
        /** The answer's parts: sent, and recorded for the saved message's steps. */
        const emit = (chunks: ReadonlyArray<UiMessageChunk>) => {
          for (const chunk of chunks) parts.push(chunk)
          return send(chunks)
        }
        // Only the answer's citations are saved: the ones its text cites, with the numbers the reader saw.
        const citations = () => state.numbering.citedInText().flatMap(([position, number]) => {
          const passage = ledger.at(position)
          return passage ? [citationOf(passage, number)] : []
        })
        // A save, once started, finishes: a client that hangs up while the answer is being saved (the LOCAL
        // answerer gets there within milliseconds) would otherwise roll it back and leave only the question.
        const save = (status: "COMPLETE" | "INTERRUPTED" | "FAILED") =>
          Effect.uninterruptible(Effect.suspend(() => {
            if (state.saved) return Effect.succeed(citations())
            state.saved = status
            const cited = citations()
            const savedParts = parts.parts()
            // One statement with the usage rows held so far; a conversation deleted while its answer streamed keeps
            // nothing but the usage.
            const held = turn.usageRows.splice(0)
            return repo.appendAssistantMessage(caller.userId, {
              id: messageId, conversationId, content: state.text, status, citations: cited,
              provider: state.provider ? providerName(state.provider) : null, model: state.provider?.modelId ?? null,
              parts: savedParts.length > 0 ? savedParts : null
            }, held.length > 0 ? usage.insertAll(held) : undefined).pipe(
              Effect.tapErrorCause(() => Effect.sync(() => void turn.usageRows.push(...held))),
              Effect.as(cited)
            )
          }))

        const callModel = (request: ChatRequest_, passages: ReadonlyArray<Passage>, answerer: ModelChoice | undefined): Stream.Stream<StepChunk, unknown> =>
          Stream.unwrap(Effect.map(models.stream(caller, "ASSISTANT_CHAT", request, passages, answerer), ({ provider, chunks }) =>
            Stream.concat(Stream.succeed<StepChunk>({ _tag: "provider", provider }), chunks)))
        // A model call that fails before its first text or tool call (a gateway refusing the key, down, too slow)
        // is answered offline after a MODEL_FALLBACK notice; the provider's detail goes to the log only.
        const model: ToolCallingModel = {
          step: (request, passages) => Stream.suspend(() => {
            let started = false
            return callModel(request, passages, choice).pipe(
              Stream.mapChunks((chunks) => {
                started ||= Chunk.some(chunks, (chunk) => chunk._tag !== "provider")
                return chunks
              }),
              Stream.catchAll((error) => {
                if (started) return Stream.fail(error)
                const code = failureCode(error)
                return Stream.unwrap(Effect.as(
                  Effect.logWarning("model call failed; answering offline").pipe(Effect.annotateLogs({ code, providerDetail: String((error as { message?: unknown } | null)?.message ?? error) })),
                  Stream.concat(
                    Stream.succeed<StepChunk>({ _tag: "notice", code: "MODEL_FALLBACK", message: `The model call failed (${code}); answering offline` }),
                    callModel(request, passages, localChoice)
                  )
                ))
              })
            )
          })
        }
        const startedAt = yield* Clock.currentTimeMillis

        const answer = Effect.gen(function* () {
          // Awaited, not joined: what the early search shares (read scopes, usage rows) is in mutable holders, so
          // there is nothing of its fiber's to inherit.
          const early = turn.early ? yield* yield* Fiber.await(turn.early) : undefined
          const query = early ? early.query : yield* plan(caller, question, history)
          const tools = turn.toolCalling
            ? assistantTools.forChat({ conversationId, fileIds: body.fileIds ?? [], knowledgeSpaceIds: body.knowledgeSpaceIds, graph: yield* assistantTools.graphOffered(caller) })
            : []
          const conversation = history.map((message): ChatMessage => ({ role: message.role === "USER" ? "user" : "assistant", content: message.content }))
          const context: LoopContext = {
            caller, messageId, model, tools, limits: settings.assistantLoop, state, startedAt, callIds: new Set(), emit,
            messages: [{ role: "system", content: TOOL_SYSTEM_PROMPT }, ...conversation, { role: "user", content: question }]
          }
          const found = early ? Either.match(early.found, { onLeft: (error) => Effect.fail(error), onRight: (passages) => Effect.succeed(passages) }) : undefined
          yield* plannedStep(context, yield* firstCalls(caller, body, turn, query, found))
          // Offline, the planner searches again when the first search found too little (see secondQuery); it is a
          // step too, so only when the answering step still fits in LORE_ASSISTANT_MAX_STEPS.
          const again = turn.toolCalling || ledger.count() >= ENOUGH_PASSAGES || state.steps + 2 > settings.assistantLoop.maxSteps ? undefined : secondQuery(question, query)
          if (again) yield* plannedStep(context, [searchCall(caller, body, again, PASSAGE_LIMIT)])
          if (turn.toolCalling) return yield* modelSteps(context)
          // Nothing the caller may read matched: an honest answer, without asking a model to invent one.
          if (ledger.count() === 0) return yield* nothingRelevant(state, messageId, emit)
          // A model without tools is given the numbered passages in its prompt, as before the loop.
          const numbered = ledger.all().map((passage, index) => `[${index + 1}] ${passage.title}\n${passage.content}`).join("\n\n")
          return yield* modelSteps({ ...context, messages: [{ role: "system", content: `${SYSTEM_PROMPT}\n\n${numbered}` }, ...conversation, { role: "user", content: question }] })
        })

        const ending = Effect.flatMap(save("COMPLETE"), (cited) => send([
          ...cited.map((citation): UiMessageChunk => ({
            type: "source-document", sourceId: citation.sourceId, title: citation.title,
            mediaType: ledger.all().find((passage) => passage.citationId === citation.citationId)?.mediaType ?? "text/plain"
          })),
          { type: "data-citations", data: { citations: cited.map(streamedCitation) } },
          { type: "finish", finishReason: "stop", messageMetadata: { provider: state.provider ? providerName(state.provider) : "LOCAL", model: state.provider?.modelId ?? localModels.ASSISTANT_CHAT.modelId } }
        ]))

        const failed = (cause: Cause.Cause<unknown>) =>
          Effect.gen(function* () {
            yield* Effect.logWarning("chat answer failed").pipe(Effect.annotateLogs({ conversationId, messageId, cause: Cause.pretty(cause) }))
            yield* Effect.ignoreLogged(save("FAILED"))
            // The code only: a provider's message may carry its raw response, which is for the log, not the employee.
            const failure = Cause.failureOption(cause)
            const reason = failure._tag === "Some"
              ? `The model call failed (${failureCode(failure.value)}); the partial answer was saved`
              : "The answer failed; the partial answer was saved"
            yield* send([{ type: "error", errorText: reason }])
          })

        const turnProgram = Effect.zipRight(answer, ending).pipe(
          Effect.catchAllCause((cause) => (Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : failed(cause))),
          Effect.zipRight(Effect.sync(() => {
            state.delivered = true
            sink.end()
          })),
          // However the turn ends: completed (already saved), failed, or the client gone (interrupted). A client gone
          // after the COMPLETE save but before the body's end did not get the whole answer: INTERRUPTED.
          Effect.onExit((exit) => {
            if (exit._tag === "Failure" && !Cause.isInterruptedOnly(exit.cause)) return Effect.ignoreLogged(save("FAILED"))
            if (exit._tag === "Success" || state.delivered) return Effect.void
            return Effect.ignoreLogged(state.saved === "COMPLETE" ? repo.markInterrupted(messageId) : save("INTERRUPTED"))
          }),
          // Usage rows not written with the answer (a failed save) are written once the turn is over.
          Effect.ensuring(Effect.ignoreLogged(Effect.suspend(() => usage.recordAll(turn.usageRows.splice(0))))),
          Effect.ensuring(turn.early ? Fiber.interrupt(turn.early) : Effect.void),
          // The chat's read scopes, AI configuration and held usage rows (see prepare) for everything the turn runs.
          withReadScopes(turn.scopes),
          withAiConfig(turn.aiConfig),
          Effect.locally(heldUsage, Option.some(turn.usageRows))
        )
        const running = yield* Effect.forkDaemon(turnProgram)
        // The body closes when it has ended or the client went away: a turn still running then is interrupted.
        sink.closed(() => running.unsafeInterruptAsFork(running.id()))
        return sink.readable
      })

    return {
      /** Validates and records the question (errors here are problem+json), then answers the stream to send. */
      chat: (caller: Principal, body: ChatRequest) => Effect.flatMap(prepare(caller, body), (turn) => Effect.map(respond(caller, body, turn), (readable) => ({ turn, body: readable })))
    }
  }),
  dependencies: [ConversationsRepo.Default, ModelOptions.Default, Retrieval.Default, AssistantTools.Default, Usage.Default]
}) {}
