import { Cause, Chunk, Clock, Effect, type Either, Stream } from "effect"
import type { ChatChunk, ChatMessage, ChatRequest, ChatTool, ToolCall } from "../../ai/ChatTypes"
import type { Passage } from "../../ai/LocalModel"
import type { ProviderInfo } from "../../ai/Models"
import type { AssistantLoopSettings } from "../../Config"
import type { Principal } from "../../domain/Principal"
import type { Refusal } from "../../mcp/Results"
import type { citationNumbering } from "../CitationNumbering"
import type { UiMessageChunk } from "../UiMessageStream"
import { numberedOutput, type PassageLedger } from "./Ledger"
import type { AssistantTool, ToolAnswer } from "./ToolSet"

/**
 * The assistant's bounded tool loop. Each step is sent (`LoopContext.emit`) as UI Message Stream parts: `start-step`, the text
 * (renumbered citations), each tool call (`tool-input-start`, `tool-input-delta`, `tool-input-available` or
 * `tool-input-error`, then `tool-output-available` or `tool-output-error`), `finish-step`. A step whose model
 * asked for tools runs them (as the caller, each within the tool timeout) and is followed by another; once a
 * limit is reached (steps, tokens, time) one last step runs without tools and answers. A failed call is an
 * error part the model reads, never a broken stream.
 */

/** What a model step streams: who answers (first, and again after a fallback), notices, then the model's chunks. */
export type StepChunk =
  | ChatChunk
  | { readonly _tag: "provider"; readonly provider: ProviderInfo }
  | { readonly _tag: "notice"; readonly code: "MODEL_FALLBACK"; readonly message: string }

/** What the loop needs of a model: one streamed step (text, tool input deltas and calls, the finish with usage). */
export interface ToolCallingModel {
  readonly step: (request: ChatRequest, passages: ReadonlyArray<Passage>) => Stream.Stream<StepChunk, unknown>
}

/** What the turn has said so far: the chat saves it however the stream ends. */
export interface TurnState {
  /** The answer's text: the latest step's text as the reader sees it (renumbered). */
  text: string
  provider: ProviderInfo | undefined
  /** Input and output tokens the model steps spent. */
  tokens: number
  steps: number
  readonly numbering: ReturnType<typeof citationNumbering>
  readonly ledger: PassageLedger
}

/** A call the server makes itself (the planner's searches), streamed like the model's. */
export interface PlannedCall {
  readonly toolName: string
  readonly input: Record<string, unknown>
  readonly run: Effect.Effect<ToolAnswer, Refusal>
  /** Its answer is already here (a new conversation's first search ran beside the question's statement): no timeout. */
  readonly answered?: boolean
}

/** The longest tool-call arguments taken from a model (JSON text); longer is a tool-input-error. */
const MAX_ARGUMENT_CHARS = 16_384
/** A tool's output as the model reads it, at most (the user's part keeps all of it). */
const MAX_OUTPUT_CHARS_FOR_MODEL = 24_000

const passagesOf = (ledger: PassageLedger): ReadonlyArray<Passage> =>
  ledger.all().map((passage) => ({ id: passage.citationId, title: passage.title, text: passage.content }))

const errorText = (refusal: Refusal) => `${refusal.code}: ${refusal.detail}`

/** A tool name as a part type may carry it: known names as they are; anything else cut to safe characters. */
const safeName = (name: string) => name.replace(/[^A-Za-z0-9_-]/g, "").slice(0, 64) || "unknown"

export interface LoopContext {
  readonly caller: Principal
  readonly messageId: string
  readonly model: ToolCallingModel
  /** Offered to the model; empty for a model without tool calling (one answering step). */
  readonly tools: ReadonlyArray<AssistantTool>
  readonly limits: AssistantLoopSettings
  readonly state: TurnState
  /** The conversation so far for the model: system, history, the question, then every step's calls and results. */
  readonly messages: Array<ChatMessage>
  readonly startedAt: number
  /** Tool call ids used in this message (a model's repeated or missing id is replaced, so each part has its own). */
  readonly callIds: Set<string>
  /** Sends the turn's parts as they are made (and records them for the saved message). */
  readonly emit: (chunks: ReadonlyArray<UiMessageChunk>) => Effect.Effect<void>
}

/** Runs one call as the caller within the tool timeout: its output, or the refusal (TOOL_TIMEOUT, INTERNAL_ERROR for a defect). */
const runCall = (context: LoopContext, run: Effect.Effect<ToolAnswer, Refusal>) =>
  run.pipe(
    Effect.timeoutFail({
      duration: context.limits.toolTimeoutMs,
      onTimeout: (): Refusal => ({ code: "TOOL_TIMEOUT", detail: `The tool did not answer within ${Math.round(context.limits.toolTimeoutMs / 1000)} seconds` })
    }),
    // A refusal is the tool's answer; a defect is logged and answered as INTERNAL_ERROR; an interruption stays one.
    Effect.catchAllDefect((defect) =>
      Effect.flatMap(
        Effect.logError("assistant tool call failed").pipe(Effect.annotateLogs({ cause: Cause.pretty(Cause.die(defect)) })),
        () => Effect.fail<Refusal>({ code: "INTERNAL_ERROR", detail: "The tool failed unexpectedly" })
      )),
    Effect.either
  )

/**
 * A call's result as chunks and, for a model offered tools, as the tool message it reads next (a model without
 * tools is given the passages in its prompt instead: see Chat.ts).
 */
const resultOf = (context: LoopContext, toolCallId: string, toolName: string, result: Either.Either<ToolAnswer, Refusal>): ReadonlyArray<UiMessageChunk> => {
  const forModel = context.tools.length > 0
  if (result._tag === "Left") {
    const text = errorText(result.left)
    if (forModel) context.messages.push({ role: "tool", toolCallId, toolName, content: text, isError: true })
    return [{ type: "tool-output-error", toolCallId, errorText: text }] satisfies ReadonlyArray<UiMessageChunk>
  }
  for (const passage of result.right.passages) context.state.ledger.add(passage)
  const output = numberedOutput(result.right.output, context.state.ledger)
  if (forModel) {
    const json = JSON.stringify(output)
    context.messages.push({ role: "tool", toolCallId, toolName, content: json.length > MAX_OUTPUT_CHARS_FOR_MODEL ? `${json.slice(0, MAX_OUTPUT_CHARS_FOR_MODEL)}…(cut)` : json })
  }
  return [{ type: "tool-output-available", toolCallId, output }] satisfies ReadonlyArray<UiMessageChunk>
}

/** A step of calls the server chose (the planner's), sent as tool parts and recorded for the model. */
export const plannedStep = (context: LoopContext, calls: ReadonlyArray<PlannedCall>): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (calls.length === 0) return Effect.void
    context.state.steps++
    const step = context.state.steps
    const ids = calls.map((_, index) => `lore_${step}_${index + 1}`)
    for (const id of ids) context.callIds.add(id)
    if (context.tools.length > 0) {
      context.messages.push({
        role: "assistant",
        content: "",
        toolCalls: calls.map((call, index) => ({ id: ids[index]!, name: call.toolName, arguments: JSON.stringify(call.input) }))
      })
    }
    // The step's start goes with its first call's parts, its finish with its last's: one write each call.
    return Effect.forEach(calls, (call, index) =>
      Effect.flatMap(call.answered ? Effect.either(call.run) : runCall(context, call.run), (result) => {
        const toolCallId = ids[index]!
        return context.emit([
          ...(index === 0 ? [{ type: "start-step" } as const] : []),
          { type: "tool-input-start", toolCallId, toolName: call.toolName },
          { type: "tool-input-delta", toolCallId, inputTextDelta: JSON.stringify(call.input) },
          { type: "tool-input-available", toolCallId, toolName: call.toolName, input: call.input },
          ...resultOf(context, toolCallId, call.toolName, result),
          ...(index === calls.length - 1 ? [{ type: "finish-step" } as const] : [])
        ])
      }), { discard: true })
  })

/** The input chunks of a model's call, and what to run (undefined: the input was refused and answered already). */
const acceptCall = (context: LoopContext, call: ToolCall, toolCallId: string, opened: boolean) => {
  const tool = context.tools.find((candidate) => candidate.name === call.name)
  const toolName = tool ? tool.name : safeName(call.name)
  const arguments_ = call.arguments.length > MAX_ARGUMENT_CHARS ? undefined : call.arguments
  // The start and the argument deltas were streamed as they came, unless the model layer sent the call whole.
  const opening: Array<UiMessageChunk> = opened ? [] : [
    { type: "tool-input-start", toolCallId, toolName },
    { type: "tool-input-delta", toolCallId, inputTextDelta: (arguments_ ?? call.arguments.slice(0, 200)) }
  ]
  const refuse = (refusal: Refusal, input: unknown) => ({
    chunks: [...opening, { type: "tool-input-error", toolCallId, toolName, input, errorText: errorText(refusal) }] as ReadonlyArray<UiMessageChunk>,
    run: undefined,
    refused: errorText(refusal)
  })
  if (!tool) return refuse({ code: "UNKNOWN_TOOL", detail: `No tool is named so; the tools are ${context.tools.map((t) => t.name).join(", ")}` }, undefined)
  if (arguments_ === undefined) return refuse({ code: "INVALID_TOOL_INPUT", detail: `The arguments are longer than ${MAX_ARGUMENT_CHARS} characters` }, undefined)
  let input: unknown
  try {
    input = arguments_.trim() === "" ? {} : JSON.parse(arguments_)
  } catch {
    return refuse({ code: "INVALID_TOOL_INPUT", detail: "The arguments are not JSON" }, arguments_.slice(0, 200))
  }
  // The provider library hands unparsable arguments over as their text: arguments are an object or nothing.
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return refuse({ code: "INVALID_TOOL_INPUT", detail: "The arguments are not a JSON object" }, typeof input === "string" ? input.slice(0, 200) : undefined)
  }
  return {
    chunks: [...opening, { type: "tool-input-available", toolCallId, toolName, input }] as ReadonlyArray<UiMessageChunk>,
    run: tool.run(context.caller, input),
    refused: undefined
  }
}

/**
 * Model steps from the next one on: with tools while no limit is reached and tools are offered, else one
 * answering step without them. A step whose model called no tool ends the loop.
 */
export const modelSteps = (context: LoopContext): Effect.Effect<void, unknown> =>
  Effect.gen(function* () {
    for (;;) {
      const { calls, withTools } = yield* modelStep(context)
      if (!withTools || calls === 0) return
    }
  })

/** One model step: its parts sent as they come, then the tools it called run; how many it called. */
const modelStep = (context: LoopContext) =>
  Effect.gen(function* () {
    const { state, limits } = context
    const now = yield* Clock.currentTimeMillis
    const limited = state.steps + 1 >= limits.maxSteps || state.tokens >= limits.tokenBudget || now - context.startedAt >= limits.timeLimitMs
    const withTools = context.tools.length > 0 && !limited
    if (context.tools.length > 0 && !withTools) {
      context.messages.push({ role: "system", content: "No more tools: answer now from the passages found, citing them as [n]." })
    }
    state.steps++
    const step = state.steps
    // The answering step keeps the tools declared (the conversation holds calls to them) but may call none.
    const tools: ReadonlyArray<ChatTool> | undefined = context.tools.length > 0
      ? context.tools.map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.inputSchema }))
      : undefined
    const request: ChatRequest = { messages: [...context.messages], ...(tools ? { tools, toolChoice: withTools ? "auto" as const : "none" as const } : {}) }

    const textId = `${context.messageId}-text-${step}`
    let textOpen = false
    let rawText = ""
    const calls: Array<{ readonly call: ToolCall; readonly toolCallId: string; readonly toolName: string; readonly run: Effect.Effect<ToolAnswer, Refusal> | undefined; readonly refused: string | undefined }> = []
    /** The provider's call ids to this message's (a missing or repeated id gets its own), with the name shown. */
    const opened = new Map<string, { readonly toolCallId: string; readonly toolName: string }>()
    const ownId = (providerId: string) => {
      const toolCallId = providerId && !context.callIds.has(providerId) && providerId.length <= 200 ? providerId : `call_${step}_${context.callIds.size + 1}`
      context.callIds.add(toolCallId)
      return toolCallId
    }
    const shownName = (name: string) => context.tools.find((tool) => tool.name === name)?.name ?? safeName(name)

    const text = (delta: string, out: Array<UiMessageChunk>) => {
      if (!textOpen) {
        textOpen = true
        state.numbering.startText()
        state.text = ""
        out.push({ type: "text-start", id: textId })
      }
      rawText += delta
      const shown = state.numbering.push(delta)
      if (shown.length > 0) {
        state.text += shown
        out.push({ type: "text-delta", id: textId, delta: shown })
      }
    }

    /** A model chunk's parts, added to `out`. */
    const partsOf = (chunk: StepChunk, out: Array<UiMessageChunk>): void => {
      if (chunk._tag === "provider") {
        state.provider = chunk.provider
        return
      }
      if (chunk._tag === "notice") return void out.push({ type: "data-notice", data: { code: chunk.code, message: chunk.message } })
      if (chunk._tag === "text") return text(chunk.text, out)
      if (chunk._tag === "finish") {
        state.tokens += chunk.usage.inputTokens + chunk.usage.outputTokens
        return
      }
      // A call in the answering step (no tool may be called) is ignored: the step answers with its text.
      if (!withTools) return
      if (chunk._tag === "toolInputStart") {
        if (opened.has(chunk.id)) return
        const shown = { toolCallId: ownId(chunk.id), toolName: shownName(chunk.name) }
        opened.set(chunk.id, shown)
        return void out.push({ type: "tool-input-start", ...shown })
      }
      if (chunk._tag === "toolInputDelta") {
        const shown = opened.get(chunk.id)
        if (shown && chunk.delta.length > 0) out.push({ type: "tool-input-delta", toolCallId: shown.toolCallId, inputTextDelta: chunk.delta })
        return
      }
      const shown = opened.get(chunk.call.id)
      if (shown) opened.delete(chunk.call.id)
      const toolCallId = shown?.toolCallId ?? ownId(chunk.call.id)
      const accepted = acceptCall(context, chunk.call, toolCallId, shown !== undefined)
      calls.push({ call: chunk.call, toolCallId, toolName: shownName(chunk.call.name), run: accepted.run, refused: accepted.refused })
      out.push(...accepted.chunks)
    }

    // The step's start goes out with the model's first parts (not with the provider's name, which has none).
    let pending: Array<UiMessageChunk> = [{ type: "start-step" }]
    yield* Stream.runForEachChunk(context.model.step(request, passagesOf(state.ledger)), (chunks) => {
      const out = pending
      const held = out.length
      Chunk.forEach(chunks, (chunk) => partsOf(chunk, out))
      if (out.length === held) return Effect.void
      pending = []
      return context.emit(out)
    })

    // The text's end, then the model's turn goes into the conversation and a result for every call it made (refused
    // ones first); the step's finish goes with the last of them.
    const closing = pending
    if (textOpen) {
      const rest = state.numbering.flush()
      state.text += rest
      if (rest.length > 0) closing.push({ type: "text-delta", id: textId, delta: rest })
      closing.push({ type: "text-end", id: textId })
    }
    const runnable = calls.filter((c) => c.run !== undefined)
    if (calls.length > 0) {
      context.messages.push({ role: "assistant", content: rawText, toolCalls: calls.map(({ call, toolCallId }) => ({ ...call, id: toolCallId })) })
      for (const { toolCallId, toolName, refused } of calls) {
        if (refused !== undefined) context.messages.push({ role: "tool", toolCallId, toolName, content: refused, isError: true })
      }
    }
    if (runnable.length === 0) closing.push({ type: "finish-step" })
    if (closing.length > 0) yield* context.emit(closing)
    for (const [index, { toolCallId, toolName, run }] of runnable.entries()) {
      const result = yield* runCall(context, run!)
      yield* context.emit([...resultOf(context, toolCallId, toolName, result), ...(index === runnable.length - 1 ? [{ type: "finish-step" } as const] : [])])
    }
    return { calls: calls.length, withTools }
  })
