import { createLoreClient } from "@lore/sdk"
import { nonEmpty } from "../../arguments"
import { defineCommand, type Me } from "../../command"
import { cliVersion, type LoreClient, type Runtime } from "../../context"
import { notice, present } from "../../output/present"
import { styled, type View } from "../../output/view"
import { login } from "../../session"
import { meFields } from "../../views/users"

// The invitee's side of an invitation. Needs no login; it is the login.

export interface AcceptResult {
  readonly profile: string
  readonly server: string
  readonly user: Me
  /** The personal access token the server issued (saved in the profile; its secret is never printed). */
  readonly token: { readonly id: string; readonly name: string; readonly expiresAt: string | null }
  readonly configPath: string
}

/**
 * Redeems the code (creating the user and their first token), then logs in with that token exactly as
 * `lore login` does: it is verified with GET /api/me and saved in the profile.
 */
export const acceptInvitation = async (
  runtime: Pick<Runtime, "profileName" | "configPath" | "client">,
  input: { readonly server: string; readonly code: string; readonly name?: string | undefined }
): Promise<AcceptResult> => {
  // No credentials on purpose: a token saved in the profile belongs to someone else (or is stale).
  const anonymous: LoreClient = createLoreClient({ baseUrl: input.server, userAgent: `lore-cli/${cliVersion} node/${process.versions.node}` })
  const accepted = await anonymous.invitations.accept(input.name === undefined ? { code: input.code } : { code: input.code, name: input.name })
  const token = accepted.token.token
  const loggedIn = await login(runtime.client({ server: input.server, token }), { profile: runtime.profileName, server: input.server, token, configPath: runtime.configPath })
  return {
    profile: loggedIn.profile,
    server: loggedIn.server,
    user: loggedIn.user,
    token: { id: accepted.token.id, name: accepted.token.name, expiresAt: accepted.token.expiresAt ?? null },
    configPath: loggedIn.configPath
  }
}

const acceptedView = (result: AcceptResult): View => [
  { kind: "message", tone: "success", text: `Welcome, ${result.user.name}: you are now logged in to ${result.server} (profile ${result.profile})` },
  { kind: "fields", fields: [...meFields(result.user), ["Token saved in", styled(result.configPath, "muted")]] }
]

export default defineCommand({
  description: "redeem an invitation code: creates your user, then saves your new token in the profile (no login needed)",
  examples: ["lore invitations accept lore_inv_... --server https://lore.example.com --profile work", "lore invitations accept lore_inv_... --name \"Ada Lovelace\""],
  configure: (command) =>
    command
      .argument("<code>", "the invitation code you were given (lore_inv_...)")
      .option("--name <name>", "your display name (default: the one on the invitation, or your email's name)"),
  run: async (runtime, command) => {
    const [rawCode] = command.processedArgs as [string]
    const flags = command.opts<{ name?: string }>()
    const code = nonEmpty(rawCode, "the invitation code")
    const name = flags.name === undefined ? undefined : nonEmpty(flags.name, "--name")
    const { server } = runtime.target()
    const previous = runtime.profile()
    const result = await present(runtime, {
      progress: `Accepting the invitation at ${server}`,
      run: () => acceptInvitation(runtime, { server, code, name }),
      view: acceptedView,
      json: ({ configPath: _configPath, ...rest }) => rest
    })
    if (previous?.token && previous.user && previous.user !== result.user.email) {
      notice(runtime, `profile ${result.profile} was logged in as ${previous.user}; it now uses ${result.user.email}`)
    }
    if (runtime.env.LORE_TOKEN) notice(runtime, "LORE_TOKEN is set: it overrides the saved token until you unset it")
  }
})
