import { readFileSync } from "node:fs"
import { nonEmpty } from "../arguments"
import { defineCommand } from "../command"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask, notice, present } from "../output/present"
import { styled, type View } from "../output/view"
import { login, type LoginResult } from "../session"
import { ssoLogin } from "../ssoLogin"

const readTokenFromStdin = () => {
  if (process.stdin.isTTY) throw usageError("--token - reads the token from stdin, but stdin is a terminal; pipe the token in")
  const token = readFileSync(0, "utf8").trim()
  if (token === "") throw usageError("--token -: stdin was empty")
  return token
}

const resolveToken = async (runtime: Runtime, flag: string | undefined) => {
  if (flag === "-") return readTokenFromStdin()
  if (flag !== undefined) return nonEmpty(flag, "--token")
  return ask(runtime, { label: "Personal access token:", flag: "--token", secret: true })
}

const loginView = (result: LoginResult): View => [
  { kind: "message", tone: "success", text: `Logged in to ${result.server} as ${result.user.name} <${result.user.email}> (profile ${result.profile})` },
  { kind: "fields", fields: [["Saved in", styled(result.configPath, "muted")]] }
]

export default defineCommand({
  description: "verify a personal access token with the server and save it in the profile",
  helpGroup: "Getting started",
  examples: [
    "lore login --server https://lore.example.com --token lore_pat_...",
    "pass show lore | lore login --server https://lore.example.com --token -   # token from stdin",
    "lore login --profile prod --server https://lore.example.com              # asks for the token",
    "lore login --sso --server https://lore.example.com                        # sign in in the browser (single sign-on)"
  ],
  notes: "The server comes from --server, LORE_SERVER, the profile, or http://127.0.0.1:8787.",
  configure: (command) =>
    command
      .option("--token <token>", "personal access token (lore_pat_...); '-' reads it from stdin; prompted for on a terminal")
      .option("--sso", "sign in with the organization's single sign-on in a browser; the result comes back to a listener on 127.0.0.1")
      .option("--no-browser", "with --sso: only print the sign-in URL (open it yourself)"),
  run: async (runtime, command) => {
    const { token: tokenFlag, sso, browser } = command.opts<{ token?: string; sso?: boolean; browser: boolean }>()
    if (sso && tokenFlag !== undefined) throw usageError("pass --sso or --token, not both")
    const { server } = runtime.target()
    const token = sso
      ? await ssoLogin(server, {
        openBrowser: browser,
        timeoutMs: Number(runtime.env.LORE_SSO_TIMEOUT_MS ?? 300_000),
        announce: (url) => process.stderr.write(`Sign in to Lore in your browser${browser ? " (opening it now)" : ""}:\n  ${url}\n`)
      })
      : await resolveToken(runtime, tokenFlag)
    const lore = runtime.client({ server, token })
    await present(runtime, {
      progress: `Verifying the token with ${server}`,
      run: () => login(lore, { profile: runtime.profileName, server, token, configPath: runtime.configPath }),
      json: (result) => ({ profile: result.profile, server: result.server, user: result.user }),
      view: loginView
    })
    if (runtime.env.LORE_TOKEN) notice(runtime, "LORE_TOKEN is set: it overrides the saved token until you unset it")
  }
})
