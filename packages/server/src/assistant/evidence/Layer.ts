import { Evidence } from "./Evidence"

/**
 * Conversation evidence. Needs the knowledge area's Sources and KnowledgeSearch and the assistant's RateLimits
 * from the app (built once there); brings its own repositories. Exposes Evidence (boundPassages is what the chat calls, passagesFor its conversation_files_search tool).
 */
export const AssistantEvidenceLive = Evidence.Default
