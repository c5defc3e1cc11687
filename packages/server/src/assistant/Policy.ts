import { Effect } from "effect"
import { ConversationNotFound, MessageNotFound } from "./Errors"

/**
 * Conversations are private to their owner: anyone else, administrators included, is answered 404, as for
 * a conversation that does not exist (the repository's statements only find the caller's own).
 */
export const ownConversation = <A>(found: A | undefined): Effect.Effect<A, ConversationNotFound> =>
  found === undefined
    ? Effect.fail(new ConversationNotFound({ detail: "No conversation with this id that you own" }))
    : Effect.succeed(found)

export const ownMessage = <A>(found: A | undefined): Effect.Effect<A, MessageNotFound> =>
  found === undefined
    ? Effect.fail(new MessageNotFound({ detail: "No message with this id in a conversation you own" }))
    : Effect.succeed(found)

/** A change that found no row of the caller's: 404 as well. */
export const ownedChange = (changed: boolean) => ownConversation(changed ? true : undefined)
