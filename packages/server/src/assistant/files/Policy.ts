import { Effect } from "effect"
import { AssistantFileNotReady } from "./Errors"
import type { FileRow } from "./Repo"
import { quoteInput } from "../../domain/Echo"

/**
 * Who may do what with an assistant file: only its owner may see, read, use or delete it, for as long as it
 * has not expired. The repository applies that rule in every statement a user's request runs (owner_id and
 * expires_at in the WHERE clause), so another user's file and an expired one are both 404, never 403.
 * What this file adds is the rule for using a file as chat context: it must be READY.
 */
export const usableAsContext = (file: FileRow) => {
  switch (file.status) {
    case "READY":
      return Effect.void
    case "FAILED":
      return Effect.fail(new AssistantFileNotReady({
        detail: `The file ${quoteInput(file.fileName, 100)} could not be processed (${file.failureCode ?? "FAILED"}); upload a readable copy`
      }))
    default:
      return Effect.fail(new AssistantFileNotReady({ detail: `The file ${quoteInput(file.fileName, 100)} is still being processed; try again in a moment` }))
  }
}
