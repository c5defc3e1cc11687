import { LoreApiError } from "@lore/sdk"
import type { Command } from "commander"
import { readFileSync } from "node:fs"
import { type CommandModule, handler, type Me } from "../command"
import { updateProfile } from "../config"
import type { LoreClient, Runtime } from "../context"
import { CliError, ExitCode, usageError } from "../errors"
import { ask, notice, present } from "../output/render"
import { styled, type View } from "../output/view"

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

const readTokenFromStdin = () => {
  if (process.stdin.isTTY) throw usageError("--token - reads the token from stdin, but stdin is a terminal; pipe the token in")
  const token = readFileSync(0, "utf8").trim()
  if (token === "") throw usageError("--token -: stdin was empty")
  return token
}

const resolveToken = async (runtime: Runtime, flag: string | undefined) => {
  if (flag === "-") return readTokenFromStdin()
  if (flag !== undefined) {
    if (flag.trim() === "") throw usageError("--token is empty")
    return flag.trim()
  }
  return ask(runtime, { label: "Personal access token:", flag: "--token", secret: true })
}

export const loginCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("login")
      .description("verify a personal access token with the server and save it in the profile")
      .option("--token <token>", "personal access token (lore_pat_...); '-' reads it from stdin; prompted for on a terminal")
      .addHelpText(
        "after",
        "\nThe server comes from --server, LORE_SERVER, the profile, or http://127.0.0.1:8787.\n" +
          "Example: lore login --server https://lore.example.com --token lore_pat_..."
      )
      .action(
        handler(async (runtime, command) => {
          const { token: tokenFlag } = command.opts<{ token?: string }>()
          const { server } = runtime.target()
          const token = await resolveToken(runtime, tokenFlag)
          const lore = runtime.client({ server, token })
          const result = await present(runtime, {
            progress: `Verifying the token with ${server}`,
            run: () => login(lore, { profile: runtime.profileName, server, token, configPath: runtime.configPath }),
            json: (result) => ({ profile: result.profile, server: result.server, user: result.user }),
            view: loginView
          })
          if (runtime.env.LORE_TOKEN && result) {
            notice(runtime, "LORE_TOKEN is set: it overrides the saved token until you unset it")
          }
        })
      )

    program
      .command("logout")
      .description("remove the saved token of the profile (the token itself stays valid; revoke it with 'lore tokens revoke')")
      .action(
        handler(async (runtime) => {
          await present(runtime, {
            progress: "Logging out",
            run: async () => logout({ profile: runtime.profileName, configPath: runtime.configPath }),
            view: logoutView
          })
          if (runtime.env.LORE_TOKEN) notice(runtime, "LORE_TOKEN is still set and still authenticates commands")
        })
      )
  }
}

const loginView = (result: LoginResult): View => [
  {
    kind: "message",
    tone: "success",
    text: `Logged in to ${result.server} as ${result.user.name} <${result.user.email}> (profile ${result.profile})`
  },
  { kind: "fields", fields: [["Saved in", styled(result.configPath, "muted")]] }
]

const logoutView = (result: LogoutResult): View =>
  result.loggedOut
    ? [{ kind: "message", tone: "success", text: `Logged out of ${result.server ?? "the server"} (profile ${result.profile})` }]
    : [{ kind: "message", text: `Not logged in (profile ${result.profile}); nothing to do` }]
