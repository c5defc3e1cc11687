import { createLoreClient } from "@lore/sdk"
import type { Command } from "commander"
import { type CommandModule, handler, type Me } from "../command"
import { cliVersion, type LoreClient, type Runtime } from "../context"
import { usageError } from "../errors"
import { notice, present } from "../output/render"
import { styled, type View } from "../output/view"
import { login } from "./login"
import { userFields } from "./whoami"

// The invitee's side of an invitation: `lore invitations accept <code>`. Needs no login; it is the login.

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
  const loggedIn = await login(runtime.client({ server: input.server, token }), {
    profile: runtime.profileName,
    server: input.server,
    token,
    configPath: runtime.configPath
  })
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
  { kind: "fields", fields: [...userFields(result.user), ["Token saved in", styled(result.configPath, "muted")]] }
]

export const invitationsCommand: CommandModule = {
  register: (program: Command) => {
    const invitations = program.command("invitations").description("accept an invitation to a Lore organization")

    invitations
      .command("accept")
      .description("redeem an invitation code: creates your user, then saves your new token in the profile (no login needed)")
      .argument("<code>", "the invitation code you were given (lore_inv_...)")
      .option("--name <name>", "your display name (default: the one on the invitation, or your email's name)")
      .addHelpText("after", "\nExample: lore invitations accept lore_inv_... --server https://lore.example.com --profile work")
      .action(
        handler(async (runtime, command) => {
          const [rawCode] = command.processedArgs as [string]
          const { name } = command.opts<{ name?: string }>()
          const code = rawCode.trim()
          if (code === "") throw usageError("the invitation code is empty")
          if (name !== undefined && name.trim() === "") throw usageError("--name is empty")
          const { server } = runtime.target()
          const previous = runtime.profile()
          const result = await present(runtime, {
            progress: `Accepting the invitation at ${server}`,
            run: () => acceptInvitation(runtime, { server, code, name: name?.trim() }),
            view: acceptedView,
            json: ({ configPath: _configPath, ...rest }) => rest
          })
          if (previous?.token && previous.user && previous.user !== result.user.email) {
            notice(runtime, `profile ${result.profile} was logged in as ${previous.user}; it now uses ${result.user.email}`)
          }
          if (runtime.env.LORE_TOKEN) notice(runtime, "LORE_TOKEN is set: it overrides the saved token until you unset it")
        })
      )
  }
}
