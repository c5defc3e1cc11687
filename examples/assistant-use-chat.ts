import { DefaultChatTransport, readUIMessageStream, type UIMessage } from "ai"

/**
 * The assistant through the `ai` package's own chat transport, the one `useChat` uses, with a cookie session
 * and its CSRF header, as a browser front end does. Runs in Node (where the cookie is carried by hand);
 * in React the same transport goes to `useChat`:
 *
 *   import { useChat } from "@ai-sdk/react"
 *   import { DefaultChatTransport } from "ai"
 *
 *   const csrf = async () => (await (await fetch("/api/session/csrf", { credentials: "include" })).json()).token
 *   const { messages, sendMessage, stop } = useChat({
 *     transport: new DefaultChatTransport({
 *       api: "/api/assistant/chat",
 *       credentials: "include",                                   // the HttpOnly lore_session cookie
 *       headers: async () => ({ "X-CSRF-Token": await csrf() }),  // required on POST with a cookie session
 *       body: () => ({ conversationId })                          // from the data-conversation part, for follow-ups
 *     }),
 *     onData: (part) => { if (part.type === "data-conversation") setConversationId(part.data.conversationId) }
 *   })
 *
 * Each assistant message's id is the saved message's id (feedback: PUT /api/assistant/messages/{id}/feedback);
 * its parts hold the text, one `source-document` per cited passage and the `data-citations` list.
 *
 *   npx tsx examples/assistant-use-chat.ts "Do flights need a manager's approval?"
 */
const server = process.env.LORE_SERVER ?? "http://127.0.0.1:8787"
const question = process.argv[2] ?? "What does the handbook say about travel?"

// A cookie session from a token (a browser gets it from the sign-in page), then its CSRF token.
const signIn = await fetch(`${server}/api/session`, {
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ token: process.env.LORE_TOKEN })
})
if (!signIn.ok) throw new Error(`sign-in failed: ${signIn.status} ${await signIn.text()}`)
const cookie = signIn.headers.getSetCookie().map((line) => line.split(";")[0]).join("; ")
const csrf = (await (await fetch(`${server}/api/session/csrf`, { headers: { cookie } })).json()) as { headerName: string; token: string }

let conversationId: string | undefined
const transport = new DefaultChatTransport<UIMessage>({
  api: `${server}/api/assistant/chat`,
  credentials: "include",
  headers: () => ({ [csrf.headerName]: csrf.token }),
  body: () => (conversationId ? { conversationId } : {}),
  // Node has no cookie store: add the session cookie to each request (a browser does this itself).
  fetch: (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), cookie } })
})

const send = async (text: string, history: Array<UIMessage>) => {
  const messages: Array<UIMessage> = [...history, { id: `user-${history.length}`, role: "user", parts: [{ type: "text", text }] }]
  const stream = await transport.sendMessages({ chatId: "example", messages, trigger: "submit-message", messageId: undefined, abortSignal: undefined })
  let answer: UIMessage | undefined
  for await (const message of readUIMessageStream({ stream })) answer = message
  for (const part of answer?.parts ?? []) {
    if (part.type === "text") console.log(part.text)
    if (part.type === "source-document") console.log(`  source: ${part.title} (${part.sourceId})`)
    if (part.type === "data-conversation") conversationId = (part.data as { conversationId: string }).conversationId
  }
  console.log(`(message ${answer?.id}, conversation ${conversationId}, ${JSON.stringify(answer?.metadata)})\n`)
  return [...messages, answer!]
}

const history = await send(question, [])
await send("Tell me more.", history)
