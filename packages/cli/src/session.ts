import { LoreApiError } from "@lore/sdk"
import type { Me } from "./command"
import { updateProfile } from "./config"
import type { LoreClient } from "./context"
import { CliError, ExitCode } from "./errors"

/** Saving a login: shared by `lore login` and `lore invitations accept`, which logs in with its new token. */

export interface LoginResult {
  readonly profile: string
  readonly server: string
  readonly user: Me
  readonly configPath: string
}

/**
 * Verifies the token against the server (GET /api/me) and only then saves it: a rejected token leaves
 * the stored profile untouched (exit 3).
 */
export const login = async (
  lore: LoreClient,
  input: { readonly profile: string; readonly server: string; readonly token: string; readonly configPath: string }
): Promise<LoginResult> => {
  let user: Me
  try {
    user = await lore.me.get()
  } catch (error) {
    if (LoreApiError.is(error) && error.status === 401) {
      throw new CliError(
        ExitCode.notAuthenticated,
        error.code || "UNAUTHORIZED",
        `the server rejected the token (${error.detail}); nothing was saved`,
        error.status,
        error.requestId ?? undefined
      )
    }
    throw error
  }
  updateProfile(
    input.profile,
    (current) => ({ ...current, server: input.server, token: input.token, user: user.email, savedAt: new Date().toISOString() }),
    input.configPath
  )
  return { profile: input.profile, server: input.server, user, configPath: input.configPath }
}
