import { Clock, Duration, Effect, Option, Runtime, Stream } from "effect"
import type { Principal } from "../domain/Principal"
import { complete, streamChat } from "./ChatCalls"
import { type CallTarget, type ChatChunk, type ChatCompletion, ChatError, type ChatRequest } from "./ChatTypes"
import { gatewayFetch } from "./GatewayFetch"
import { Gateways } from "./Gateways"
import { extractiveAnswer, type Passage, salientTerms } from "./LocalModel"
import { LOCAL_GATEWAY_ID, type RouteSource, type Workload } from "./Model"
import { localModels } from "./Presets"
import { Routes } from "./Routes"
import { UsageRepo } from "./UsageRepo"

/** Who produced an answer: every answer carries it, so a reader knows whether a model or LOCAL wrote it. */
export interface ProviderInfo {
  readonly gatewayId: string
  readonly gatewayKey: string
  readonly modelId: string
  /** LOCAL, or the vendor's protocol. */
  readonly protocol: string
  readonly source: RouteSource
  /** Set when the route names a gateway that is disabled or gone, so LOCAL answered instead. */
  readonly fallbackReason?: string
}

/** The workloads a language model serves (the embedding workloads have their own client, `EmbeddingModel`). */
export type ChatWorkload = Exclude<Workload, "QUERY_EMBEDDING" | "DOCUMENT_EMBEDDING">

/** A workload's route resolved for one call: LOCAL, or a gateway to call over HTTP. */
export type ResolvedModel =
  | { readonly _tag: "local"; readonly provider: ProviderInfo }
  | { readonly _tag: "remote"; readonly provider: ProviderInfo; readonly target: CallTarget }

/** A gateway and model chosen for one call instead of the workload's route (the assistant's per-conversation model). */
export interface ModelChoice {
  readonly gatewayId: string
  readonly modelId: string
}

export interface ModelAnswer extends ChatCompletion {
  readonly provider: ProviderInfo
  readonly citations: ReadonlyArray<{ readonly index: number; readonly passageId: string; readonly title: string }>
}

const numbered = (passages: ReadonlyArray<Passage>) =>
  passages.map((passage, index) => `[${index + 1}] ${passage.title}\n${passage.text}`).join("\n\n")

const lastUserText = (request: ChatRequest) => [...request.messages].reverse().find((message) => message.role === "user")?.content ?? ""

const KEYWORDS_SCHEMA = {
  name: "keyword_plan",
  schema: { type: "object", properties: { keywords: { type: "array", items: { type: "string" } } }, required: ["keywords"], additionalProperties: false }
}

/** LOCAL's lines are streamed this far apart (an answer of three quotes arrives over 180 ms). */
const LOCAL_STREAM_GAP = Duration.millis(60)

/**
 * LOCAL's text a line at a time (its answer is a line of introduction and a line per quoted sentence), paced the
 * way a model streams: a reader sees it arrive, and a client that hangs up mid-answer interrupts it mid-answer, as
 * with a gateway, rather than after it was all written. A piece per line, not per few words: each piece costs the
 * stream's stages and a socket write on both sides, and 20 of them were most of a LOCAL chat's CPU.
 */
const pacedText = (text: string): Stream.Stream<ChatChunk> => {
  // Blank lines go with the line before them.
  const [first = text, ...rest] = text.match(/[^\n]*\n*/g)!.filter((piece) => piece.length > 0)
  return Stream.concat(
    Stream.succeed<ChatChunk>({ _tag: "text", text: first }),
    Stream.fromIterable(rest).pipe(Stream.mapEffect((piece) => Effect.as(Effect.sleep(LOCAL_STREAM_GAP), { _tag: "text", text: piece } as ChatChunk)))
  )
}

/**
 * How a call reaches its gateway: the provider library's requests go through Lore's fetch (timeouts, retries,
 * no redirects), which logs each call with its credentials redacted, on the caller's logger.
 */
const connectionFor = (target: CallTarget, stream: boolean) =>
  Effect.map(Effect.runtime<never>(), (runtime) => ({
    protocol: target.protocol,
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    fetch: gatewayFetch({
      timeoutMs: target.requestTimeoutSeconds * 1000,
      attempts: target.attempts ?? 3,
      onRequest: (url, headers) =>
        Runtime.runSync(runtime)(Effect.logDebug("ai model call").pipe(Effect.annotateLogs({ url, model: target.modelId, stream, headers })))
    })
  }))

/**
 * The provider's chunks as a stream whose interruption aborts the HTTP call at once (closing the connection),
 * rather than waiting for the provider's next chunk as the generator's own `return()` would.
 */
const providerStream = (target: CallTarget, request: ChatRequest): Stream.Stream<ChatChunk, ChatError> =>
  Stream.unwrapScoped(Effect.gen(function* () {
    const abort = new AbortController()
    const connection = yield* connectionFor(target, true)
    const iterator = streamChat(target, connection, request, abort.signal)[Symbol.asyncIterator]()
    yield* Effect.addFinalizer(() => Effect.promise(() => {
      abort.abort()
      return iterator.return(undefined).then(() => undefined, () => undefined)
    }))
    return Stream.repeatEffectOption(
      Effect.tryPromise({
        try: () => iterator.next(),
        catch: (error) => Option.some(error instanceof ChatError ? error : new ChatError({ code: "BAD_RESPONSE", message: String(error) }))
      }).pipe(Effect.flatMap((result) => (result.done ? Effect.fail(Option.none()) : Effect.succeed(result.value))))
    )
  }))

/**
 * The one model layer: every chat-like workload (assistant chat, prompt runs, keyword planning) resolves its
 * effective route on each call (ADMIN > ENVIRONMENT > DEFAULT, read afresh, so a route change applies to the
 * next call) and calls that gateway, or LOCAL. A route to a disabled or deleted gateway falls back to LOCAL
 * and the answer says so. Every call is recorded in the usage log (tokens, duration, workload, gateway, model).
 */
export class Models extends Effect.Service<Models>()("lore/Models", {
  effect: Effect.gen(function* () {
    const routes = yield* Routes
    const gateways = yield* Gateways
    const usage = yield* UsageRepo

    const local = (workload: ChatWorkload, source: RouteSource, fallbackReason?: string): ResolvedModel => ({
      _tag: "local",
      provider: {
        gatewayId: LOCAL_GATEWAY_ID, gatewayKey: "local", modelId: localModels[workload].modelId, protocol: "LOCAL", source,
        ...(fallbackReason ? { fallbackReason } : {})
      }
    })

    const resolve = (actor: Principal, workload: ChatWorkload, choice?: ModelChoice) =>
      Effect.gen(function* () {
        const routed = (yield* routes.list(actor)).find((candidate) => candidate.workload === workload)!
        const route = choice ? { ...routed, gatewayProfileId: choice.gatewayId, modelId: choice.modelId, providerReasoningEffort: undefined } : routed
        if (route.gatewayProfileId === LOCAL_GATEWAY_ID) return local(workload, route.source)
        const connection = yield* gateways.connection(actor, route.gatewayProfileId)
        if (!connection) return local(workload, route.source, "The route's gateway no longer exists: LOCAL answered instead")
        const { gateway, apiKey } = connection
        if (!gateway.enabled) return local(workload, route.source, `Gateway ${gateway.gatewayKey} is disabled: LOCAL answered instead`)
        if (apiKey === "unreadable") {
          return yield* new ChatError({ code: "CREDENTIAL_UNREADABLE", message: `The key of gateway ${gateway.gatewayKey} cannot be decrypted with this server's key; set it again` })
        }
        if (gateway.protocol === "LOCAL") return local(workload, route.source)
        return {
          _tag: "remote" as const,
          provider: { gatewayId: gateway.id, gatewayKey: gateway.gatewayKey, modelId: route.modelId, protocol: gateway.protocol, source: route.source },
          target: {
            protocol: gateway.protocol, baseUrl: gateway.baseUrl, modelId: route.modelId, apiKey,
            requestTimeoutSeconds: gateway.requestTimeoutSeconds, reasoningEffort: route.providerReasoningEffort
          }
        }
      })

    const record = (actor: Principal, workload: ChatWorkload, provider: ProviderInfo, started: number, outcome: "OK" | "FAILED", tokens = { inputTokens: 0, outputTokens: 0 }) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        usage.record({
          organizationId: actor.organizationId, workload, gatewayId: provider.gatewayId, gatewayKey: provider.gatewayKey, modelId: provider.modelId,
          inputTokens: tokens.inputTokens, outputTokens: tokens.outputTokens, durationMs: Math.round(now - started), outcome
        }))

    /** LOCAL's answer to a chat request: the extractive answerer, or the salient terms for keyword planning. */
    const localCompletion = (workload: ChatWorkload, request: ChatRequest, passages: ReadonlyArray<Passage>) => {
      const question = lastUserText(request)
      if (workload === "KEYWORD_PLANNING") {
        const keywords = salientTerms(question)
        return { text: request.responseSchema ? JSON.stringify({ keywords }) : keywords.join(" "), toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 }, citations: [] }
      }
      const answer = extractiveAnswer(question, passages)
      return { text: answer.text, toolCalls: [], finishReason: "stop", usage: { inputTokens: 0, outputTokens: 0 }, citations: answer.citations }
    }

    const generate = (actor: Principal, workload: ChatWorkload, request: ChatRequest, passages: ReadonlyArray<Passage> = []) =>
      Effect.gen(function* () {
        const model = yield* resolve(actor, workload)
        const started = yield* Clock.currentTimeMillis
        if (model._tag === "local") {
          const answer = localCompletion(workload, request, passages)
          yield* record(actor, workload, model.provider, started, "OK")
          return { ...answer, provider: model.provider } satisfies ModelAnswer
        }
        const connection = yield* connectionFor(model.target, false)
        const completion = yield* Effect.tryPromise({
          try: (interrupted) => complete(model.target, connection, request, interrupted),
          catch: (error) => (error instanceof ChatError ? error : new ChatError({ code: "BAD_RESPONSE", message: String(error) }))
        }).pipe(Effect.tapError(() => record(actor, workload, model.provider, started, "FAILED")))
        yield* record(actor, workload, model.provider, started, "OK", completion.usage)
        return { ...completion, provider: model.provider, citations: [] } satisfies ModelAnswer
      })

    /**
     * A streamed call: the provider that answers, then its chunks as they arrive (text; for each tool call its
     * start, its argument deltas and the completed call; the finish with usage). Tools are offered, never run
     * here: the caller runs them and calls again with the results. LOCAL answers in paced word-aligned pieces
     * (`pacedText`).
     */
    const stream = (actor: Principal, workload: ChatWorkload, request: ChatRequest, passages: ReadonlyArray<Passage> = [], choice?: ModelChoice) =>
      Effect.gen(function* () {
        const model = yield* resolve(actor, workload, choice)
        const started = yield* Clock.currentTimeMillis
        if (model._tag === "local") {
          const answer = localCompletion(workload, request, passages)
          yield* record(actor, workload, model.provider, started, "OK")
          const finish: ChatChunk = { _tag: "finish", finishReason: "stop", usage: answer.usage }
          return { provider: model.provider, chunks: Stream.concat(pacedText(answer.text), Stream.succeed(finish)) }
        }
        const chunks = providerStream(model.target, request).pipe(
          Stream.tap((chunk) => (chunk._tag === "finish" ? record(actor, workload, model.provider, started, "OK", chunk.usage) : Effect.void)),
          Stream.tapError(() => record(actor, workload, model.provider, started, "FAILED"))
        )
        return { provider: model.provider, chunks }
      })

    return {
      resolve,
      generate,
      stream,

      /**
       * Answers a question from retrieved passages, citing them as [n]. LOCAL quotes the best-matching
       * sentences (or says nothing relevant was found); a model is given the numbered passages.
       */
      answer: (actor: Principal, workload: "ASSISTANT_CHAT" | "PROMPT_EXECUTION", question: string, passages: ReadonlyArray<Passage>) =>
        generate(actor, workload, {
          messages: [
            {
              role: "system",
              content: "Answer only from the numbered passages below, citing them as [n]. If none is relevant, say plainly that nothing relevant was found.\n\n" +
                numbered(passages)
            },
            { role: "user", content: question }
          ]
        }, passages),

      /** The search terms for a question: LOCAL's salient terms, or the model's structured keyword plan. */
      planKeywords: (actor: Principal, question: string) =>
        Effect.gen(function* () {
          const answer = yield* generate(actor, "KEYWORD_PLANNING", {
            messages: [
              { role: "system", content: "List the search keywords that best find documents answering the user's question." },
              { role: "user", content: question }
            ],
            responseSchema: KEYWORDS_SCHEMA
          })
          const parsed = yield* Effect.try({
            try: () => JSON.parse(answer.text) as { keywords?: unknown },
            catch: () => new ChatError({ code: "BAD_RESPONSE", message: "The keyword plan is not JSON" })
          })
          const keywords = Array.isArray(parsed.keywords) ? parsed.keywords.filter((word): word is string => typeof word === "string") : []
          return { keywords, provider: answer.provider, usage: answer.usage }
        })
    }
  }),
  dependencies: [UsageRepo.Default]
}) {}
