import { defineCommand } from "../command"
import { updateProfile } from "../config"
import { notice, present } from "../output/present"
import type { View } from "../output/view"

export interface LogoutResult {
  readonly profile: string
  readonly server: string | null
  readonly loggedOut: boolean
}

/** Forgets the token of the profile (the server URL stays, for the next login). The token is not revoked. */
export const logout = (input: { readonly profile: string; readonly configPath: string }): LogoutResult => {
  let result: LogoutResult = { profile: input.profile, server: null, loggedOut: false }
  updateProfile(
    input.profile,
    (current) => {
      if (!current) return undefined
      const { token, user: _user, savedAt: _savedAt, ...rest } = current
      result = { profile: input.profile, server: current.server ?? null, loggedOut: token !== undefined }
      return rest
    },
    input.configPath
  )
  return result
}

const logoutView = (result: LogoutResult): View =>
  result.loggedOut
    ? [{ kind: "message", tone: "success", text: `Logged out of ${result.server ?? "the server"} (profile ${result.profile})` }]
    : [{ kind: "message", text: `Not logged in (profile ${result.profile}); nothing to do` }]

export default defineCommand({
  description: "remove the saved token of the profile (the token itself stays valid; revoke it with 'lore tokens revoke')",
  helpGroup: "Getting started",
  examples: ["lore logout", "lore logout --profile prod"],
  run: async (runtime) => {
    await present(runtime, {
      progress: "Logging out",
      run: async () => logout({ profile: runtime.profileName, configPath: runtime.configPath }),
      view: logoutView
    })
    if (runtime.env.LORE_TOKEN) notice(runtime, "LORE_TOKEN is still set and still authenticates commands")
  }
})
