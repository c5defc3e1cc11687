import { createLoreClient, isLoreError } from "@lore/sdk"
import { uploadAssistantFile } from "@lore/sdk/node"

// Ask the assistant a question with the SDK: print the answer as it streams, then its numbered sources;
// a follow-up continues the same conversation.
// With a third argument, a file of yours is uploaded privately and attached (cited as kind FILE).
//   npx tsx examples/assistant-chat.ts "Do flights need a manager's approval?" "And trains?" [./my-notes.pdf]

const [question, followUp, file] = process.argv.slice(2)
if (!question) {
  console.error('usage: tsx examples/assistant-chat.ts "<question>" ["<follow-up>"]')
  process.exit(2)
}

const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787", token: process.env.LORE_TOKEN })

const ask = async (message: string, conversationId?: string) => {
  let answer = { conversationId: undefined as string | undefined, messageId: undefined as string | undefined }
  for await (const part of lore.assistant.chat({ message, ...(conversationId ? { conversationId } : {}) })) {
    if (part.type === "start") answer = { ...answer, messageId: part.messageId }
    if (part.type === "data-conversation") answer = { ...answer, conversationId: part.data.conversationId }
    if (part.type === "text-delta") process.stdout.write(part.delta)
    if (part.type === "data-citations") {
      process.stdout.write("\n\nSources:\n")
      for (const citation of part.data.citations) console.log(`[${citation.citationNumber}] ${citation.title} (${citation.excerptUrl})`)
    }
    if (part.type === "finish") console.log(`\n(answered by ${part.messageMetadata?.provider} ${part.messageMetadata?.model})`)
    if (part.type === "error") console.error(`\nThe answer failed: ${part.errorText}`)
  }
  return answer
}

try {
  const first = await ask(question)
  if (followUp) await ask(followUp, first.conversationId)
  if (file) {
    // Private to you, never in the shared index; processing must be READY before a chat may attach it.
    const uploaded = await uploadAssistantFile(lore, file)
    const ready = await lore.assistant.files.waitUntilSettled(uploaded.id)
    if (ready.status !== "READY") throw new Error(`${file}: ${ready.failureCode}`)
    const { text, citations } = await lore.assistant.chat({ message: question, fileIds: [ready.id] }).final()
    console.log(`\n${text}\n${citations.map((c) => `[${c.citationNumber}] ${c.kind} ${c.title}`).join("\n")}`)
  }
  // The helpers, when only the end result matters:
  const { text, citations } = await lore.assistant.chat({ message: question }).final()
  console.log(`\n${text.length} characters, ${citations.length} citations`)
  if (first.messageId) await lore.assistant.setFeedback(first.messageId, "HELPFUL")
} catch (error) {
  // Errors before the stream starts are typed: an empty question, someone else's conversation or file, the
  // per-user chat limit (429 RATE_LIMITED; its Retry-After says when to ask again).
  if (isLoreError(error, "INVALID_CHAT_REQUEST") || isLoreError(error, "CONVERSATION_NOT_FOUND") || isLoreError(error, "ASSISTANT_FILE_NOT_FOUND") || isLoreError(error, "RATE_LIMITED")) console.error(error.detail)
  else throw error
}
