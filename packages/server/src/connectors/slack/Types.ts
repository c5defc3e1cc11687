import type { ConversationsHistoryResponse, ConversationsInfoResponse, UsersListResponse } from "@slack/web-api"

/** The element types of @slack/web-api's responses, which the package names only inside them. */
export type MessageElement = NonNullable<ConversationsHistoryResponse["messages"]>[number]
export type Member = NonNullable<UsersListResponse["members"]>[number]
export type Channel = NonNullable<ConversationsInfoResponse["channel"]>
