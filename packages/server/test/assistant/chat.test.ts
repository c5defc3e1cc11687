import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Backend, backends, client, type Client, ingested, userClient } from "../knowledge/support"
import { type FakeChat, startFakeChat } from "../support/chatProviders"
import { chat, citationsOf, conversationOf, finalMessage, messageIdOf, parseChunks, postChat, textOf } from "./support"

/**
 * The assistant end to end over HTTP: the chat stream read with the `ai` package's own parser, schema and
 * `readUIMessageStream`; answers by LOCAL and by a loopback OpenAI-compatible provider; honest not-found;
 * no leak across spaces in the stream or afterwards; revoked access; disconnects; privacy of conversations.
 */

const LOCAL_MODEL_ID = "00000000-0000-4000-a000-0000000000a1"
const SECRET = "sk-assistant-test-0123456789abcdef"
const TRAVEL = "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval before booking.\n"
const VAULT = "# Zebra budget\n\nThe zqvaultmarker zebra project budget is four million and is kept in the red vault.\n"

describe.each(backends)("the assistant on $name", { timeout: 240_000 }, (backend) => {
  let server: Awaited<ReturnType<Backend["start"]>>
  let admin: Client
  let blue: Client & { id: string }
  let red: Client & { id: string }
  let provider: FakeChat
  let slowProvider: FakeChat
  const spaces: Record<string, string> = {}
  const departments: Record<string, string> = {}

  beforeAll(async () => {
    provider = await startFakeChat({ apiKey: SECRET, gapMs: 5, text: ["Flights need a manager's approval [", "1]. That is all."] })
    slowProvider = await startFakeChat({ apiKey: SECRET, gapMs: 150, text: Array.from({ length: 60 }, (_, i) => `word${i} `) })
    server = await backend.start()
    admin = client(server.url, server.adminToken)
    for (const name of ["Red", "Blue"]) departments[name] = (await admin.call("POST", "/api/admin/departments", { name })).body.id
    for (const key of ["open", "red"]) spaces[key] = (await admin.call("POST", "/api/admin/knowledge-spaces", { key, name: key })).body.id
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.open}/grants`, { relation: "viewer", kind: "ORGANIZATION" })).status).toBe(204)
    expect((await admin.call("POST", `/api/admin/knowledge-spaces/${spaces.red}/grants`, { relation: "viewer", kind: "DEPARTMENT", subjectId: departments.Red })).status).toBe(204)
    await ingested(admin, { spaceId: spaces.open!, name: "travel.md", title: "Travel policy", bytes: TRAVEL, type: "text/markdown", classification: "INTERNAL" })
    await ingested(admin, { spaceId: spaces.red!, name: "zebra.md", title: "Zebra budget", bytes: VAULT, type: "text/markdown", classification: "INTERNAL" })
    blue = await userClient(admin.call, server.url, { email: "blue@example.com", departmentId: departments.Blue! })
    red = await userClient(admin.call, server.url, { email: "red@example.com", departmentId: departments.Red! })
  })
  afterAll(async () => {
    await server?.dispose()
    await provider?.close()
    await slowProvider?.close()
  })

  /** A gateway to a fake provider with one assistant model; answers the model's activation id. */
  const assistantModel = async (key: string, baseUrl: string, modelId: string) => {
    const gateway = await admin.call("POST", "/api/admin/ai/gateways", { gatewayKey: key, displayName: key, preset: "OPENAI_COMPATIBLE", baseUrl, requestTimeoutSeconds: 10 })
    expect(gateway.status, JSON.stringify(gateway.body)).toBe(201)
    expect((await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/credential`, { apiKey: SECRET })).status).toBe(204)
    const models = await admin.call("PUT", `/api/admin/ai/gateways/${gateway.body.id}/assistant-models`, [{ modelId, displayName: modelId }])
    expect(models.status, JSON.stringify(models.body)).toBe(200)
    return models.body[0].id as string
  }

  it("streams a cited LOCAL answer in the UI Message Stream protocol, every chunk valid, saved before finish", async () => {
    const reply = await chat(blue, { message: "Do flights need a manager's approval?" })
    expect(reply.status).toBe(200)
    expect(reply.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
    expect(reply.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(reply.raw.trimEnd().endsWith("data: [DONE]")).toBe(true)
    const types = reply.chunks.map((chunk) => chunk.type)
    const firstDelta = types.indexOf("text-delta")
    // The planner's search is a step of its own, streamed as a knowledge_search tool call; then the answering step.
    expect(types.slice(0, firstDelta + 1)).toEqual([
      "start", "data-conversation",
      "start-step", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-output-available", "finish-step",
      "start-step", "text-start", "text-delta"
    ])
    const tail = types.slice(types.indexOf("text-end"))
    expect(tail).toEqual(["text-end", "finish-step", "source-document", "data-citations", "finish"])
    const finish = reply.chunks.at(-1) as any
    expect(finish.messageMetadata).toEqual({ provider: "LOCAL", model: "lore-extractive" })

    const text = textOf(reply.chunks)
    expect(text).toContain("Flights need a manager's approval before booking.")
    expect(text).toContain("[1]")
    const cited = citationsOf(reply.chunks)
    expect(cited.map((citation) => citation.citationNumber)).toEqual([1])
    const source = reply.chunks.find((chunk) => chunk.type === "source-document") as any
    expect(source).toMatchObject({ sourceId: cited[0]!.sourceId, title: "Travel policy", mediaType: "text/markdown" })

    // What useChat holds: one assistant message with the saved id, its text, the source and the data parts.
    const message = await finalMessage(reply.chunks)
    expect(message.id).toBe(messageIdOf(reply.chunks))
    expect(message.parts.map((part) => part.type)).toEqual(expect.arrayContaining(["text", "source-document", "data-conversation", "data-citations"]))
    expect(message.metadata).toEqual({ provider: "LOCAL", model: "lore-extractive" })

    const conversationId = conversationOf(reply.chunks)
    const listed = await blue.call("GET", "/api/assistant/conversations")
    expect(listed.body[0]).toMatchObject({ id: conversationId, title: "Do flights need a manager's approval?", messageCount: 2 })
    const messages = await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)
    expect(messages.body.map((m: any) => [m.role, m.status])).toEqual([["USER", "COMPLETE"], ["ASSISTANT", "COMPLETE"]])
    expect(messages.body[1]).toMatchObject({ id: messageIdOf(reply.chunks), content: text, provider: "LOCAL", model: "lore-extractive" })
    // The steps come back with the message as useChat's reducer built them (source and data parts aside).
    expect(messages.body[1].parts).toEqual(message.parts.filter((part) => !part.type.startsWith("data-") && !part.type.startsWith("source-")))
    expect(messages.body[1].parts.map((part: any) => part.type)).toEqual(["step-start", "tool-knowledge_search", "step-start", "text"])
    expect(messages.body[1].parts[1]).toMatchObject({ state: "output-available", input: { query: expect.any(String), limit: 6 } })
    expect(messages.body[1].parts[1].output.hits[0]).toMatchObject({ passage: 1, title: "Travel policy" })
    expect(messages.body[0].parts).toBeUndefined()
    const saved = await blue.call("GET", `/api/assistant/messages/${messageIdOf(reply.chunks)}/citations`)
    expect(saved.status).toBe(200)
    expect(saved.body).toHaveLength(1)
    expect(saved.body[0]).toMatchObject({ citationNumber: 1, sourceId: cited[0]!.sourceId, title: cited[0]!.title, available: true })
    expect((await blue.call("GET", saved.body[0].excerptUrl)).status).toBe(200)

    // A follow-up continues the conversation.
    const followUp = await chat(blue, { message: "And trains?", conversationId })
    expect(conversationOf(followUp.chunks)).toBe(conversationId)
    expect((await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body).toHaveLength(4)
  })

  it("says honestly when nothing relevant is found, with no citation", async () => {
    const reply = await chat(blue, { message: "What is the parking fee on the moon?" })
    expect(textOf(reply.chunks)).toMatch(/nothing relevant/)
    expect(reply.chunks.some((chunk) => chunk.type === "source-document")).toBe(false)
    expect(citationsOf(reply.chunks)).toEqual([])
    expect((await blue.call("GET", `/api/assistant/messages/${messageIdOf(reply.chunks)}/citations`)).body).toEqual([])
  })

  it("never gives a passage, title or citation from a space the caller cannot see; revoked access shows unavailable", async () => {
    const question = { message: "What is the zqvaultmarker zebra project budget?" }
    const hidden = await chat(blue, question)
    expect(hidden.raw).not.toContain("four million")
    expect(hidden.raw).not.toContain("Zebra budget")
    expect(citationsOf(hidden.chunks)).toEqual([])
    const tool = await blue.call("POST", "/api/assistant/tools/knowledge-search", { query: "zqvaultmarker zebra budget" })
    expect(tool.status).toBe(200)
    expect(tool.body.traceId).toMatch(/^[0-9a-f-]{36}$/)
    expect(tool.body.citations).toEqual([])
    const starters = await blue.call("GET", "/api/assistant/starters")
    expect(JSON.stringify(starters.body)).not.toContain("Zebra")

    const seen = await chat(red, question)
    expect(textOf(seen.chunks)).toContain("four million")
    const [citation] = citationsOf(seen.chunks)
    expect(citation).toMatchObject({ citationNumber: 1, title: "Zebra budget" })
    expect((await red.call("POST", "/api/assistant/tools/knowledge-search", { query: "zqvaultmarker zebra budget" })).body.citations[0].title).toBe("Zebra budget")

    // The grant goes: the old citation is unavailable, shows no title, and its excerpt is 404.
    expect((await admin.call("DELETE", `/api/admin/knowledge-spaces/${spaces.red}/grants?relation=viewer&kind=DEPARTMENT&subjectId=${departments.Red}`)).status).toBe(204)
    const after = await red.call("GET", `/api/assistant/messages/${messageIdOf(seen.chunks)}/citations`)
    expect(after.body).toEqual([expect.objectContaining({ citationNumber: 1, available: false, title: null, heading: null, sourceId: citation!.sourceId })])
    expect((await red.call("GET", after.body[0].excerptUrl)).status).toBe(404)
    expect((await red.call("GET", `/api/assistant/conversations/${conversationOf(seen.chunks)}/messages`)).status).toBe(200)
  })

  it("keeps conversations private: another user gets 404 everywhere", async () => {
    const mine = await chat(blue, { message: "Which trips do employees book trains for?" })
    const conversationId = conversationOf(mine.chunks)
    const messageId = messageIdOf(mine.chunks)
    for (const [method, path, body] of [
      ["GET", `/api/assistant/conversations/${conversationId}/messages`],
      ["PATCH", `/api/assistant/conversations/${conversationId}`, { title: "mine now" }],
      ["DELETE", `/api/assistant/conversations/${conversationId}`],
      ["PUT", `/api/assistant/conversations/${conversationId}/model`, { modelActivationId: LOCAL_MODEL_ID }],
      ["GET", `/api/assistant/model-options?conversationId=${conversationId}`],
      ["GET", `/api/assistant/messages/${messageId}/citations`],
      ["PUT", `/api/assistant/messages/${messageId}/feedback`, { sentiment: "HELPFUL" }],
      ["DELETE", `/api/assistant/messages/${messageId}/feedback`]
    ] as const) {
      const reply = await red.call(method, path, body)
      expect(reply.status, `${method} ${path}`).toBe(404)
      expect(reply.contentType).toContain("application/problem+json")
    }
    const other = await chat(red, { message: "Trains?", conversationId })
    expect(other.status).toBe(404)
    expect(other.problem.code).toBe("CONVERSATION_NOT_FOUND")
    expect((await red.call("GET", "/api/assistant/conversations")).body.map((c: any) => c.id)).not.toContain(conversationId)
    expect((await admin.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).status).toBe(404)

    // The owner renames, gives feedback, then deletes.
    expect((await blue.call("PATCH", `/api/assistant/conversations/${conversationId}`, { title: "Trains" })).status).toBe(204)
    const feedback = await blue.call("PUT", `/api/assistant/messages/${messageId}/feedback`, { sentiment: "UNHELPFUL", comment: "too short" })
    expect(feedback.body).toMatchObject({ messageId, sentiment: "UNHELPFUL", comment: "too short" })
    expect((await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body[1].feedback).toBe("UNHELPFUL")
    expect((await blue.call("DELETE", `/api/assistant/messages/${messageId}/feedback`)).status).toBe(204)
    expect((await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body[1].feedback).toBeUndefined()
    // Feedback is about answers: the caller's own question is refused (409), the old vocabulary too (400).
    const question = (await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).body[0]
    expect(question.role).toBe("USER")
    const onQuestion = await blue.call("PUT", `/api/assistant/messages/${question.id}/feedback`, { sentiment: "HELPFUL" })
    expect(onQuestion.status).toBe(409)
    expect(onQuestion.body.code).toBe("WRONG_MESSAGE_ROLE")
    expect((await blue.call("PUT", `/api/assistant/messages/${messageId}/feedback`, { sentiment: "NOT_HELPFUL" })).status).toBe(400)
    expect((await blue.call("DELETE", `/api/assistant/conversations/${conversationId}`)).status).toBe(204)
    expect((await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)).status).toBe(404)
  })

  it("answers 400 problem+json before the stream for an empty or too long question, and takes the ai transport's body", async () => {
    for (const body of [{}, { message: "   " }, { message: "x".repeat(8001) }, { id: "abc", messages: [] }]) {
      const reply = await chat(blue, body)
      expect(reply.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(reply.headers.get("content-type")).toContain("application/problem+json")
      expect(reply.problem.code).toBe("INVALID_CHAT_REQUEST")
    }
    const transport = await chat(blue, {
      id: "chat-1", trigger: "submit-message", messageId: undefined,
      messages: [{ id: "u1", role: "user", parts: [{ type: "text", text: "Do flights need approval?" }] }]
    })
    expect(transport.status).toBe(200)
    expect(textOf(transport.chunks)).toContain("[1]")
  })

  it("offers LOCAL with its fixed id when nothing is configured, and answers with a chosen loopback provider", async () => {
    const options = await blue.call("GET", "/api/assistant/model-options")
    expect(options.body.selectedModelActivationId).toBe(LOCAL_MODEL_ID)
    expect(options.body.options).toEqual([expect.objectContaining({ id: LOCAL_MODEL_ID, provider: "LOCAL", defaultChoice: true })])
    expect((await blue.call("PUT", `/api/assistant/conversations/00000000-0000-4000-a000-000000000000/model`, { modelActivationId: LOCAL_MODEL_ID })).status).toBe(404)

    const modelId = await assistantModel("fake-openai", `${provider.url}/v1`, "gpt-test")
    const reply = await chat(blue, { message: "Do flights need approval?", modelActivationId: modelId })
    expect(reply.status).toBe(200)
    expect(textOf(reply.chunks)).toBe("Flights need a manager's approval [1]. That is all.")
    expect(citationsOf(reply.chunks)).toEqual([expect.objectContaining({ citationNumber: 1, title: "Travel policy" })])
    expect((reply.chunks.at(-1) as any).messageMetadata).toEqual({ provider: "fake-openai", model: "gpt-test" })
    const conversationId = conversationOf(reply.chunks)
    const chosen = await blue.call("GET", `/api/assistant/model-options?conversationId=${conversationId}`)
    expect(chosen.body.selectedModelActivationId).toBe(modelId)
    // The passages reached the provider as numbered context.
    expect(JSON.stringify(provider.requests.at(-1)!.body.messages[0])).toContain("[1] Travel policy")
    expect((await blue.call("PUT", `/api/assistant/conversations/${conversationId}/model`, { modelActivationId: LOCAL_MODEL_ID })).status).toBe(204)
    const back = await chat(blue, { message: "Do flights need approval?", conversationId })
    expect((back.chunks.at(-1) as any).messageMetadata.provider).toBe("LOCAL")
    const unknown = await chat(blue, { message: "Hello?", modelActivationId: "00000000-0000-4000-a000-00000000ffff" })
    expect(unknown.problem.code).toBe("MODEL_OPTION_NOT_FOUND")
  })

  it("saves a partial INTERRUPTED answer and stops the provider call when the client disconnects", async () => {
    const modelId = await assistantModel("fake-slow", `${slowProvider.url}/v1`, "gpt-slow")
    const abort = new AbortController()
    const response = await postChat(blue, { message: "Do flights need approval?", modelActivationId: modelId }, abort.signal)
    const reader = response.body!.getReader()
    let raw = ""
    while (!raw.includes("word2 ")) {
      const { value } = await reader.read()
      raw += new TextDecoder().decode(value)
    }
    abort.abort()
    const chunks = await parseChunks(raw.slice(0, raw.lastIndexOf("\n\n") + 2))
    const conversationId = conversationOf(chunks)
    const messageId = messageIdOf(chunks)
    const deadline = Date.now() + 30_000
    let saved: any
    while (Date.now() < deadline) {
      const messages = await blue.call("GET", `/api/assistant/conversations/${conversationId}/messages`)
      saved = messages.body.find((m: any) => m.id === messageId)
      if (saved && slowProvider.cut.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(saved).toMatchObject({ role: "ASSISTANT", status: "INTERRUPTED", provider: "fake-slow", model: "gpt-slow" })
    expect(saved.content).toContain("word0 word1 word2")
    expect(saved.content).not.toContain("word59")
    expect(slowProvider.cut).toEqual(["/v1/chat/completions"])
  })

  it("offers admin-configured starters first, then ones derived from visible knowledge", async () => {
    const set = await admin.call("PUT", "/api/admin/assistant/starters", [{ label: "Travel", prompt: "What is the travel policy?" }])
    expect(set.status).toBe(200)
    expect(set.body).toEqual([expect.objectContaining({ label: "Travel", prompt: "What is the travel policy?", source: "CONFIGURED" })])
    expect((await blue.call("PUT", "/api/admin/assistant/starters", [])).status).toBe(403)
    const starters = (await blue.call("GET", "/api/assistant/starters")).body
    expect(starters[0]).toMatchObject({ label: "Travel", source: "CONFIGURED" })
    expect(starters.filter((s: any) => s.source === "DERIVED").map((s: any) => s.label)).toEqual(["Travel policy"])
  })

  it("serves the ai package's DefaultChatTransport (what useChat uses) with a cookie session and its CSRF header", async () => {
    const signIn = await fetch(`${server.url}/api/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: blue.token }) })
    expect(signIn.status).toBe(201)
    const cookie = signIn.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ")
    const csrf = await (await fetch(`${server.url}/api/session/csrf`, { headers: { cookie } })).json() as { headerName: string; token: string }
    const transport = (headers: Record<string, string>) => new DefaultChatTransport<UIMessage>({
      api: `${server.url}/api/assistant/chat`,
      headers,
      fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), cookie } })
    })
    const messages: Array<UIMessage> = [{ id: "u1", role: "user", parts: [{ type: "text", text: "Do flights need a manager's approval?" }] }]
    const send = (headers: Record<string, string>) =>
      transport(headers).sendMessages({ chatId: "chat-1", messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined })
    const stream = await send({ [csrf.headerName]: csrf.token })
    let answer: UIMessage | undefined
    for await (const message of readUIMessageStream({ stream })) answer = message
    const text = answer!.parts.filter((part) => part.type === "text").map((part) => (part as { text: string }).text).join("")
    expect(text).toContain("[1]")
    expect(answer!.parts.some((part) => part.type === "source-document")).toBe(true)
    expect((await blue.call("GET", `/api/assistant/messages/${answer!.id}/citations`)).body).toHaveLength(1)
    await expect(send({})).rejects.toThrow(/CSRF/)
  })
})
