import { createLoreClient, isLoreError, type ChatStreamPart, type LoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { client, ingested } from "../knowledge/support"
import { startTestServer, type TestServer } from "../support/server"

/** lore.assistant against a real server: the typed stream parts, the final answer helpers, and every other method once. */
describe("SDK assistant", () => {
  let server: TestServer
  let lore: LoreClient

  beforeAll(async () => {
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    const admin = client(server.url, server.adminToken)
    const [space] = await lore.knowledgeSpaces.visible()
    await ingested(admin, {
      spaceId: space!.id, name: "travel.md", title: "Travel policy", type: "text/markdown",
      bytes: "# Travel policy\n\nEmployees book trains for trips under 500 km. Flights need a manager's approval.\n"
    })
  })
  afterAll(async () => {
    await server?.dispose()
  })

  it("streams typed parts in order and assembles the final text and citations", async () => {
    const parts: Array<ChatStreamPart> = []
    for await (const part of lore.assistant.chat({ message: "Do flights need a manager's approval?" })) parts.push(part)
    // The planner's search streams as a step of its own (a knowledge_search tool call), then the answering step;
    // the answer's text comes in one or more deltas (LOCAL streams in word-aligned pieces).
    expect(parts.map((part) => part.type).filter((type, index, types) => type !== "text-delta" || types[index - 1] !== "text-delta")).toEqual([
      "start", "data-conversation",
      "start-step", "tool-input-start", "tool-input-delta", "tool-input-available", "tool-output-available", "finish-step",
      "start-step", "text-start", "text-delta", "text-end", "finish-step", "source-document", "data-citations", "finish"
    ])
    const answer = await lore.assistant.chat({ message: "Which trips are booked by train?", conversationId: (parts[1] as any).data.conversationId }).final()
    expect(answer).toMatchObject({ finished: true, provider: "LOCAL", model: "lore-extractive", conversationId: (parts[1] as any).data.conversationId })
    expect(answer.text).toContain("[1]")
    expect(answer.citations).toEqual([expect.objectContaining({ citationNumber: 1, title: "Travel policy", available: true })])

    expect(await lore.assistant.citations(answer.messageId!)).toEqual(answer.citations)
    expect(await lore.assistant.setFeedback(answer.messageId!, "HELPFUL")).toMatchObject({ sentiment: "HELPFUL", comment: null })
    await lore.assistant.deleteFeedback(answer.messageId!)
    const [conversation] = await lore.assistant.conversations()
    expect(conversation).toMatchObject({ id: answer.conversationId, messageCount: 4 })
    await lore.assistant.renameConversation(conversation!.id, "Trains and flights")
    expect((await lore.assistant.messages(conversation!.id)).map((m) => m.role)).toEqual(["USER", "ASSISTANT", "USER", "ASSISTANT"])
    const options = await lore.assistant.modelOptions(conversation!.id)
    await lore.assistant.setConversationModel(conversation!.id, options.selectedModelActivationId)
    expect((await lore.assistant.knowledgeSearch({ query: "trains" })).citations[0]).toMatchObject({ title: "Travel policy" })
    await lore.admin.assistant.setStarters([{ label: "Travel", prompt: "What is the travel policy?" }])
    expect((await lore.assistant.starters())[0]).toMatchObject({ label: "Travel", source: "CONFIGURED" })
    expect(await lore.admin.assistant.starters()).toHaveLength(1)
    await lore.assistant.deleteConversation(conversation!.id)
    expect(await lore.assistant.conversations()).toEqual([])
  })

  it("throws typed errors raised before the stream starts", async () => {
    const empty = await lore.assistant.chat({ message: "" }).final().catch((error) => error)
    expect(isLoreError(empty, "INVALID_CHAT_REQUEST")).toBe(true)
    const missing = await lore.assistant.chat({ message: "Hi", conversationId: "00000000-0000-4000-a000-000000000000" }).final().catch((error) => error)
    expect(isLoreError(missing, "CONVERSATION_NOT_FOUND")).toBe(true)
    expect(missing.status).toBe(404)
  })

  it("yields only the text with text()", async () => {
    let text = ""
    for await (const delta of lore.assistant.chat({ message: "Do flights need approval?" }).text()) text += delta
    expect(text).toContain("Flights need a manager's approval.")
  })
})
