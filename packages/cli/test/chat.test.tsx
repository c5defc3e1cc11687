import { type ChatStreamPart, ChatStream, createLoreClient } from "@lore/sdk"
import { render } from "ink-testing-library"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ChatSession, type ChatClient } from "../src/views/chat"
import { ensureBuilt, lore, newConfigHome } from "./support/cli"
import { type ServedLore, serveLore } from "./support/serve"

// The Ink session of `lore chat`, driven through ink-testing-library: against a real server (LOCAL answers),
// and with a slow double to show that Ctrl-C stops the answer, not the program.

const ENTER = "\r"
const CTRL_C = "\u0003"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Waits until the frame satisfies `check` (a safety deadline, not a speed assertion). */
const frameWhere = async (frame: () => string | undefined, check: (text: string) => boolean, what: string) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const text = frame() ?? ""
    if (check(text)) return text
    if (Date.now() > deadline) throw new Error(`${what} not shown; last frame:\n${text}`)
    await sleep(30)
  }
}

const PLACEHOLDER = "Ask a question, or /help"

/** The input's line (it starts with "›"), where what is typed shows. */
const inputLine = (frame: string | undefined) => (frame ?? "").split("\n").filter((line) => line.startsWith("›")).pop() ?? ""

/**
 * Types a line into the session and submits it. The input is remounted empty after each submission, and on a
 * loaded machine it may not listen yet when its placeholder first shows: keystrokes sent then are dropped. So:
 * wait for the empty input, type, and type again while the placeholder still shows; Enter once the text is there.
 */
const type = async (session: { stdin: { write: (data: string) => void }; lastFrame: () => string | undefined }, text: string) => {
  await frameWhere(() => inputLine(session.lastFrame()), (line) => line.includes(PLACEHOLDER), "the empty input")
  const shown = text.slice(0, 20)
  const deadline = Date.now() + 30_000
  for (;;) {
    await sleep(50)
    session.stdin.write(text)
    const typedBy = Date.now() + 1_000
    while (Date.now() < typedBy && !inputLine(session.lastFrame()).includes(shown)) await sleep(30)
    if (inputLine(session.lastFrame()).includes(shown)) break
    if (!inputLine(session.lastFrame()).includes(PLACEHOLDER) || Date.now() > deadline) throw new Error(`"${text}" not typed; last frame:\n${session.lastFrame()}`)
  }
  session.stdin.write(ENTER)
}

let server: ServedLore

beforeAll(async () => {
  ensureBuilt()
  server = await serveLore()
  const dir = mkdtempSync(join(tmpdir(), "lore-cli-chat-"))
  writeFileSync(join(dir, "travel.md"), "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval.\n")
  const env = { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: server.url, LORE_TOKEN: server.adminToken }
  const added = await lore(["sources", "add", join(dir, "travel.md"), "--space", "general", "--title", "Travel policy", "--json"], { env, timeoutMs: 120_000 })
  expect(added.code, added.stderr).toBe(0)
})
afterAll(async () => {
  await server?.stop()
})

describe("lore chat (Ink)", () => {
  it("streams answers with numbered sources and runs /sources, /open, /good, /bad, /model and /new", async () => {
    const client = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const { stdin, lastFrame, frames, unmount } = render(<ChatSession client={client} />)
    await type({ stdin, lastFrame }, "Do flights need a manager's approval?")
    let frame = await frameWhere(lastFrame, (text) => text.includes("LOCAL · lore-extractive"), "the finished answer")
    expect(frame).toContain("Flights need a manager's approval.")
    expect(frame).toContain("[1] Travel policy")
    expect(frame).toMatch(/✓ searching: .*flights.*\(1 passage\)/)

    await type({ stdin, lastFrame }, "/sources")
    await frameWhere(() => frames.join("\n"), (text) => (text.match(/\[1\] Travel policy/g) ?? []).length >= 2, "the sources")
    await type({ stdin, lastFrame }, "/open 1")
    await frameWhere(() => frames.join("\n"), (text) => text.includes("Employees book trains for trips under 500 km."), "the excerpt")
    await type({ stdin, lastFrame }, "/good")
    await frameWhere(lastFrame, (text) => text.includes("marked helpful"), "the feedback note")
    await type({ stdin, lastFrame }, "/bad too short")
    await frameWhere(lastFrame, (text) => text.includes("marked unhelpful"), "the feedback note")
    const [conversation] = await client.assistant.conversations()
    const messages = await client.assistant.messages(conversation!.id)
    expect(messages[1]!.feedback).toBe("UNHELPFUL")

    await type({ stdin, lastFrame }, "/model")
    frame = await frameWhere(lastFrame, (text) => text.includes("/model N chooses one"), "the model list")
    expect(frame).toContain("1. Lore extractive answers (offline)")
    await type({ stdin, lastFrame }, "/model 1")
    await frameWhere(lastFrame, (text) => text.includes("Answers now come from"), "the chosen model")
    await type({ stdin, lastFrame }, "/open 9")
    await frameWhere(lastFrame, (text) => text.includes("no source 9"), "the error")

    await type({ stdin, lastFrame }, "/new")
    await frameWhere(lastFrame, (text) => text.includes("New conversation."), "the new conversation")
    await type({ stdin, lastFrame }, "Which trips are booked by train?")
    await frameWhere(lastFrame, (text) => (text.match(/LOCAL · lore-extractive/g) ?? []).length >= 2 && text.includes("Which trips"), "the second answer")
    expect((await client.assistant.conversations()).length).toBe(2)
    unmount()
  })

  it("Ctrl-C stops the answer being written and keeps the session", async () => {
    let aborted = false
    const slowClient: ChatClient = {
      assistant: {
        chat: (_input, options = {}) =>
          new ChatStream(async () => {
            const encoder = new TextEncoder()
            const send = (part: ChatStreamPart) => encoder.encode(`data: ${JSON.stringify(part)}\n\n`)
            return new ReadableStream<Uint8Array>({
              async start(controller) {
                options.signal?.addEventListener("abort", () => {
                  aborted = true
                  controller.error(new DOMException("aborted", "AbortError"))
                })
                controller.enqueue(send({ type: "start", messageId: "00000000-0000-4000-a000-000000000001" }))
                controller.enqueue(send({ type: "text-start", id: "t" }))
                for (let i = 0; i < 200 && !options.signal?.aborted; i++) {
                  controller.enqueue(send({ type: "text-delta", id: "t", delta: `word${i} ` }))
                  await sleep(50)
                }
              }
            })
          }),
        setFeedback: async () => { throw new Error("unused") },
        modelOptions: async () => { throw new Error("unused") },
        setConversationModel: async () => undefined,
        citations: async () => []
      },
      citations: { excerpt: async () => { throw new Error("unused") } }
    }
    const { stdin, lastFrame, frames } = render(<ChatSession client={slowClient} />)
    await type({ stdin, lastFrame }, "Tell me everything")
    await frameWhere(lastFrame, (text) => text.includes("word3"), "the streaming answer")
    stdin.write(CTRL_C)
    await frameWhere(lastFrame, (text) => text.includes("stopped; the partial answer is saved"), "the stopped answer")
    expect(aborted).toBe(true)
    expect(lastFrame()).not.toContain("word199")
    // The session goes on: the input is back.
    await frameWhere(lastFrame, (text) => text.includes("Ask a question, or /help"), "the prompt")
    expect(frames.some((frame) => frame.includes("word0"))).toBe(true)
  })
})
