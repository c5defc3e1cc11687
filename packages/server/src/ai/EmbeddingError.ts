import { Schema } from "effect"

/**
 * Why embedding failed, as a stable code a job can record (failureCode) and a caller can branch on:
 *
 * - EMBEDDING_NOT_CONFIGURED: no embedding model is configured (not retryable).
 * - EMBEDDING_UNAVAILABLE: the provider could not be reached, or answered 408/409/5xx (retryable).
 * - EMBEDDING_RATE_LIMITED: the provider answered 429 (retryable, usually with `retryAfterMs`).
 * - EMBEDDING_TIMEOUT: no complete answer within the request timeout (retryable).
 * - EMBEDDING_UNAUTHORIZED: 401/403, the API key is missing, wrong or lacks access (not retryable).
 * - EMBEDDING_REJECTED: any other 4xx, e.g. unknown model or input too long (not retryable).
 * - EMBEDDING_INVALID_RESPONSE: a 2xx answer Lore cannot use: not JSON, wrong count or indices, wrong
 *   dimensions, non-finite numbers (not retryable: the model or its settings need changing).
 */
export const EmbeddingErrorCode = Schema.Literal(
  "EMBEDDING_NOT_CONFIGURED",
  "EMBEDDING_UNAVAILABLE",
  "EMBEDDING_RATE_LIMITED",
  "EMBEDDING_TIMEOUT",
  "EMBEDDING_UNAUTHORIZED",
  "EMBEDDING_REJECTED",
  "EMBEDDING_INVALID_RESPONSE"
)
export type EmbeddingErrorCode = typeof EmbeddingErrorCode.Type

export class EmbeddingError extends Schema.TaggedError<EmbeddingError>()("EmbeddingError", {
  code: EmbeddingErrorCode,
  /** A sentence a person can act on; names the provider URL and the model, never the API key. */
  message: Schema.String,
  retryable: Schema.Boolean,
  /** HTTP status of the provider's answer, when there was one. */
  status: Schema.optional(Schema.Number),
  /** The provider's own error message (from `{ error: { message } }` or the body text), shortened. */
  providerMessage: Schema.optional(Schema.String),
  /** The provider's Retry-After, in milliseconds: schedule the next attempt no sooner than this. */
  retryAfterMs: Schema.optional(Schema.Number)
}) {}
