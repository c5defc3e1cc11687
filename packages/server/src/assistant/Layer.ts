import { Layer } from "effect"
import { Chat } from "./Chat"
import { Conversations } from "./Conversations"
import { ConversationsRepo } from "./ConversationsRepo"
import { ModelOptions } from "./ModelOptions"
import { Retrieval } from "./Retrieval"
import { Starters } from "./Starters"
import { StartersRepo } from "./StartersRepo"

/** The assistant area: chat, conversations, model options, starters and the knowledge-search tool. */
export const AssistantLive = Layer.mergeAll(Chat.Default, Conversations.Default, Starters.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(ModelOptions.Default, Retrieval.Default, ConversationsRepo.Default, StartersRepo.Default))
)
