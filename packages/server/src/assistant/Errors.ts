import { ProblemError } from "../domain/Errors"

export class ConversationNotFound extends ProblemError<ConversationNotFound>()("ConversationNotFound", {
  status: 404, code: "CONVERSATION_NOT_FOUND", description: "No conversation with this id that the caller owns (conversations are private to their owner)"
}) {}

export class MessageNotFound extends ProblemError<MessageNotFound>()("MessageNotFound", {
  status: 404, code: "MESSAGE_NOT_FOUND", description: "No message with this id in a conversation the caller owns"
}) {}

export class WrongMessageRole extends ProblemError<WrongMessageRole>()("WrongMessageRole", {
  status: 409, code: "WRONG_MESSAGE_ROLE", description: "Feedback is about the assistant's answers: this message is the caller's own question"
}) {}

export class ModelOptionNotFound extends ProblemError<ModelOptionNotFound>()("ModelOptionNotFound", {
  status: 404, code: "MODEL_OPTION_NOT_FOUND", description: "No assistant model with this id on an enabled gateway of the caller's organization"
}) {}

export class StarterNotFound extends ProblemError<StarterNotFound>()("StarterNotFound", {
  status: 404, code: "STARTER_NOT_FOUND", description: "No configured starter with this id in the caller's organization"
}) {}

export class InvalidChatRequest extends ProblemError<InvalidChatRequest>()("InvalidChatRequest", {
  status: 400, code: "INVALID_CHAT_REQUEST", description: "The chat request has no question (an empty or missing message, or no user message with text), or it is longer than the documented limit"
}) {}
