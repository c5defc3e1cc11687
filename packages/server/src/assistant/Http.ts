import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { asCaller } from "../domain/Principal"
import { LoreApi } from "../http/Api"
import { Chat } from "./Chat"
import { Conversations } from "./Conversations"
import { Retrieval } from "./Retrieval"
import { Starters } from "./Starters"
import { UI_MESSAGE_STREAM_HEADERS } from "./UiMessageStream"

export const AssistantHttp = HttpApiBuilder.group(LoreApi, "assistant", (handlers) =>
  Effect.gen(function* () {
    const chat = yield* Chat
    const conversations = yield* Conversations
    const starters = yield* Starters
    const retrieval = yield* Retrieval
    return handlers
      .handle("chat", ({ payload }) =>
        asCaller((me) =>
          Effect.map(chat.chat(me, payload), ({ body }) =>
            HttpServerResponse.raw(body, { contentType: UI_MESSAGE_STREAM_HEADERS["content-type"], headers: UI_MESSAGE_STREAM_HEADERS })
          )
        )
      )
      .handle("listConversations", () => asCaller(conversations.list))
      .handle("renameConversation", ({ path, payload }) => asCaller((me) => conversations.rename(me, path.conversationId, payload.title)))
      .handle("deleteConversation", ({ path }) => asCaller((me) => conversations.remove(me, path.conversationId)))
      .handle("listMessages", ({ path }) => asCaller((me) => conversations.messages(me, path.conversationId)))
      .handle("setConversationModel", ({ path, payload }) => asCaller((me) => conversations.setModel(me, path.conversationId, payload.modelActivationId)))
      .handle("listMessageCitations", ({ path }) => asCaller((me) => conversations.citations(me, path.messageId)))
      .handle("setMessageFeedback", ({ path, payload }) => asCaller((me) => conversations.setFeedback(me, path.messageId, payload)))
      .handle("deleteMessageFeedback", ({ path }) => asCaller((me) => conversations.deleteFeedback(me, path.messageId)))
      .handle("getModelOptions", ({ urlParams }) => asCaller((me) => conversations.modelOptions(me, urlParams.conversationId)))
      .handle("listStarters", () => asCaller(starters.forCaller))
      .handle("knowledgeSearchTool", ({ payload }) => asCaller((me) => retrieval.tool(me, payload)))
  })
)

export const AssistantAdminHttp = HttpApiBuilder.group(LoreApi, "adminAssistant", (handlers) =>
  Effect.gen(function* () {
    const starters = yield* Starters
    return handlers
      .handle("listConfiguredStarters", () => asCaller(starters.configured))
      .handle("setConfiguredStarters", ({ payload }) => asCaller((me) => starters.replace(me, payload)))
  })
)
