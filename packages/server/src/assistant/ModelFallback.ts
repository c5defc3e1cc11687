import { Effect, Stream } from "effect"
import { LOCAL_GATEWAY_ID } from "../ai/Model"
import type { ModelChoice } from "../ai/Models"
import { localModels } from "../ai/Presets"

/** What an answer streams: the model's text, or a notice the reader gets before any text. */
export type AnswerPiece =
  | { readonly _tag: "text"; readonly text: string }
  | { readonly _tag: "notice"; readonly code: "MODEL_FALLBACK"; readonly message: string }

/** The choice that makes the model layer answer with the offline LOCAL answerer, whatever the route says. */
export const localChoice: ModelChoice = { gatewayId: LOCAL_GATEWAY_ID, modelId: localModels.ASSISTANT_CHAT.modelId }

/** The failure's stable code (a ChatError's UNAUTHORIZED, TIMEOUT, ...), never its message: that may hold the provider's raw body. */
export const failureCode = (error: unknown) => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === "string" && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? code : "MODEL_ERROR"
}

/**
 * The model's text, or, when the model call fails before its first text (a gateway refusing the key, down, too
 * slow), a MODEL_FALLBACK notice and then the offline answer: one misconfigured gateway degrades every answer to
 * LOCAL rather than breaking chat. The provider's own detail goes to the log (administrators), never to the
 * stream. A failure after text was sent still fails the answer: its words cannot be taken back.
 */
export const withLocalFallback = <E, R1, R2>(
  primary: Stream.Stream<string, E, R1>,
  offline: Effect.Effect<Stream.Stream<string, unknown>, unknown, R2>
): Stream.Stream<AnswerPiece, unknown, R1 | R2> =>
  Stream.suspend(() => {
    let started = false
    return primary.pipe(
      Stream.map((text): AnswerPiece => ((started = true), { _tag: "text", text })),
      Stream.catchAll((error) => {
        if (started) return Stream.fail(error)
        const code = failureCode(error)
        return Stream.unwrap(Effect.gen(function* () {
          yield* Effect.logWarning("model call failed; answering offline").pipe(
            Effect.annotateLogs({ code, providerDetail: String((error as { message?: unknown } | null)?.message ?? error) })
          )
          const notice: AnswerPiece = { _tag: "notice", code: "MODEL_FALLBACK", message: `The model call failed (${code}); answering offline` }
          const text = yield* offline
          return Stream.concat(Stream.succeed(notice), Stream.map(text, (piece): AnswerPiece => ({ _tag: "text", text: piece })))
        }))
      })
    )
  })
