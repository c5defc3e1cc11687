import type { AssistantArea, ChatAnswer, CitationsArea, MessageCitation, ModelOption } from "@lore/sdk"
import { emptyAnswer, foldAnswer } from "@lore/sdk"
import { Spinner, TextInput } from "@inkjs/ui"
import { Box, render, Static, Text, useApp, useInput } from "ink"
import { useRef, useState } from "react"
import { citationLine, stepLabel, stepOutcome } from "./assistant"

// `lore chat`: an interactive session. Loaded only on a terminal (the command refuses otherwise).

/** What the session needs of the SDK client (the real LoreClient satisfies it; tests may pass a double). */
export interface ChatClient {
  readonly assistant: Pick<AssistantArea, "chat" | "setFeedback" | "modelOptions" | "setConversationModel" | "citations">
  readonly citations: Pick<CitationsArea, "excerpt">
}

interface Turn {
  readonly question: string
  readonly answer: ChatAnswer
  readonly state: "answering" | "done" | "stopped" | "failed"
}

/** A line of the transcript: a finished turn, or a note from a command. */
type Entry = { readonly kind: "turn"; readonly turn: Turn } | { readonly kind: "note"; readonly text: string; readonly tone?: "error" | "muted" }

const HELP = "/new  new conversation · /model [n] list or choose a model · /good /bad [comment] rate the last answer · " +
  "/sources the last answer's sources · /open N show source N · /exit · Ctrl-C stops an answer"

const TurnView = ({ turn }: { readonly turn: Turn }) => (
  <Box flexDirection="column" marginTop={1}>
    <Text>
      <Text bold color="cyan">You </Text>
      {turn.question}
    </Text>
    {turn.answer.steps.map((step) =>
      step.state === "running"
        ? <Spinner key={step.toolCallId} label={stepLabel(step)} />
        : (
          <Text key={step.toolCallId} dimColor>
            <Text color={step.state === "done" ? "green" : "red"}>{step.state === "done" ? "✓ " : "✗ "}</Text>
            {`${stepLabel(step)} (${stepOutcome(step)})`}
          </Text>
        ))}
    {turn.answer.notices.map((notice, index) => <Text key={index} color="yellow">{notice.message}</Text>)}
    <Text>
      <Text bold color="green">Lore </Text>
      {turn.answer.text}
      {turn.state === "answering" ? <Text dimColor>▍</Text> : null}
    </Text>
    {turn.answer.citations.length > 0 ? (
      <Box flexDirection="column" marginTop={1}>
        {turn.answer.citations.map((citation) => <Text key={citation.citationNumber} dimColor>{citationLine(citation)}</Text>)}
      </Box>
    ) : null}
    {turn.state === "stopped" ? <Text color="yellow">(stopped; the partial answer is saved)</Text> : null}
    {turn.state === "failed" ? <Text color="red">{turn.answer.error ?? "The answer failed"}</Text> : null}
    {turn.state !== "answering" && turn.answer.provider ? <Text dimColor>{`${turn.answer.provider} · ${turn.answer.model}`}</Text> : null}
  </Box>
)

const EntryView = ({ entry }: { readonly entry: Entry }) =>
  entry.kind === "turn" ? <TurnView turn={entry.turn} /> : <Text {...(entry.tone === "error" ? { color: "red" } : { dimColor: entry.tone === "muted" })}>{entry.text}</Text>

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

export const ChatSession = (props: { readonly client: ChatClient; readonly conversationId?: string }) => {
  const { exit } = useApp()
  const [log, setLog] = useState<ReadonlyArray<Entry>>([{ kind: "note", text: `Ask about what you may read. ${HELP}`, tone: "muted" }])
  const [live, setLive] = useState<Turn | undefined>()
  const [inputKey, setInputKey] = useState(0)
  const conversation = useRef<string | undefined>(props.conversationId)
  const model = useRef<string | undefined>(undefined)
  const last = useRef<ChatAnswer | undefined>(undefined)
  const options = useRef<ReadonlyArray<ModelOption>>([])
  const abort = useRef<AbortController | undefined>(undefined)

  const note = (text: string, tone?: "error" | "muted") => setLog((entries) => [...entries, { kind: "note", text, ...(tone ? { tone } : {}) }])

  useInput((input, key) => {
    if (!(key.ctrl && input === "c")) return
    // Ctrl-C stops the answer being written; with none, it ends the session.
    if (abort.current) abort.current.abort()
    else exit()
  })

  const ask = async (question: string) => {
    const controller = new AbortController()
    abort.current = controller
    let turn: Turn = { question, answer: emptyAnswer, state: "answering" }
    setLive(turn)
    try {
      const stream = props.client.assistant.chat(
        { message: question, ...(conversation.current ? { conversationId: conversation.current } : {}), ...(model.current ? { modelActivationId: model.current } : {}) },
        { signal: controller.signal }
      )
      for await (const part of stream) {
        turn = { ...turn, answer: foldAnswer(turn.answer, part) }
        if (part.type === "data-conversation") conversation.current = part.data.conversationId
        setLive(turn)
      }
      turn = { ...turn, state: turn.answer.error ? "failed" : turn.answer.finished ? "done" : "stopped" }
    } catch (error) {
      turn = controller.signal.aborted ? { ...turn, state: "stopped" } : { ...turn, state: "failed", answer: { ...turn.answer, error: errorText(error) } }
    }
    abort.current = undefined
    last.current = turn.answer.messageId ? turn.answer : last.current
    setLive(undefined)
    setLog((entries) => [...entries, { kind: "turn", turn }])
  }

  const lastAnswer = () => {
    if (!last.current?.messageId) throw new Error("No answer yet: ask something first")
    return last.current
  }

  const citationNumbered = (answer: ChatAnswer, raw: string | undefined): MessageCitation => {
    const number = Number(raw)
    const citation = answer.citations.find((candidate) => candidate.citationNumber === number)
    if (!citation) throw new Error(`The last answer has no source ${raw ?? ""}: /sources lists them`)
    return citation
  }

  const command = async (line: string) => {
    const [name, ...rest] = line.slice(1).split(/\s+/)
    const argument = rest.join(" ").trim()
    switch (name) {
      case "new":
        conversation.current = undefined
        last.current = undefined
        return note("New conversation.", "muted")
      case "model": {
        options.current = (await props.client.assistant.modelOptions(conversation.current)).options
        if (!argument) {
          return note(options.current.map((option, index) => `${index + 1}. ${option.displayName} (${option.gatewayLabel}, ${option.modelId})${option.defaultChoice ? " default" : ""}`).join("\n") +
            "\n/model N chooses one")
        }
        const chosen = options.current[Number(argument) - 1] ?? options.current.find((option) => option.id === argument)
        if (!chosen) throw new Error(`No model ${argument}: /model lists them`)
        model.current = chosen.id
        if (conversation.current) await props.client.assistant.setConversationModel(conversation.current, chosen.id)
        return note(`Answers now come from ${chosen.displayName}.`, "muted")
      }
      case "good":
      case "bad": {
        const answer = lastAnswer()
        await props.client.assistant.setFeedback(answer.messageId!, name === "good" ? "HELPFUL" : "UNHELPFUL", argument || undefined)
        return note(`Thanks: the last answer is marked ${name === "good" ? "helpful" : "unhelpful"}.`, "muted")
      }
      case "sources": {
        const cited = await props.client.assistant.citations(lastAnswer().messageId!)
        return note(cited.length === 0 ? "The last answer cites no source." : cited.map(citationLine).join("\n"))
      }
      case "open": {
        const citation = citationNumbered(lastAnswer(), rest[0])
        const excerpt = await props.client.citations.excerpt(citation.citationId)
        return note(`[${citation.citationNumber}] ${excerpt.title}${excerpt.heading ? ` › ${excerpt.heading}` : ""}\n${excerpt.excerpt.trim()}`)
      }
      case "help":
        return note(HELP, "muted")
      case "exit":
      case "quit":
        return exit()
      default:
        throw new Error(`Unknown command /${name}: /help lists them`)
    }
  }

  const submit = (value: string) => {
    const line = value.trim()
    setInputKey((key) => key + 1)
    if (!line || live) return
    const work = line.startsWith("/") ? command(line) : ask(line)
    work.catch((error: unknown) => note(errorText(error), "error"))
  }

  return (
    <Box flexDirection="column">
      <Static items={[...log]}>{(entry, index) => <EntryView key={index} entry={entry} />}</Static>
      {live ? <TurnView turn={live} /> : null}
      <Box marginTop={1}>
        <Text bold color="cyan">{"› "}</Text>
        <TextInput key={inputKey} isDisabled={live !== undefined} placeholder={live ? "answering… (Ctrl-C stops it)" : "Ask a question, or /help"} onSubmit={submit} />
      </Box>
    </Box>
  )
}

/** Runs the session until /exit or Ctrl-C with no answer in progress. */
export const runChat = async (client: ChatClient, conversationId?: string) => {
  const instance = render(<ChatSession client={client} {...(conversationId ? { conversationId } : {})} />, { exitOnCtrlC: false, patchConsole: false })
  await instance.waitUntilExit()
}
