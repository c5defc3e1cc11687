import { ssoStartUrl } from "@lore/sdk"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { CliError, ExitCode } from "./errors"

const PAGE = (text: string) => `<!doctype html><meta charset="utf-8"><title>Lore</title><body style="font-family:sans-serif;margin:3em"><p>${text}</p></body>`

/** Opens a URL in the user's browser, best effort (the URL is printed too, for another machine's browser). */
const openBrowser = (url: string) => {
  const [command, args] = process.platform === "darwin" ? ["open", [url]] : process.platform === "win32" ? ["cmd", ["/c", "start", "", url]] : ["xdg-open", [url]]
  try {
    const child = spawn(command as string, args as Array<string>, { stdio: "ignore", detached: true })
    child.on("error", () => undefined)
    child.unref()
  } catch {
    // No browser here: the printed URL is the way.
  }
}

/**
 * `lore login --sso`, like `gh auth login --web`: a one-shot HTTP listener on 127.0.0.1 receives the result of
 * the browser's sign-in. The server redirects there with a new personal access token; the nonce in the
 * redirect URL ties the answer to this run.
 */
export const ssoLogin = async (
  server: string,
  options: { readonly openBrowser: boolean; readonly timeoutMs: number; readonly announce: (url: string) => void }
): Promise<string> => {
  const nonce = randomBytes(16).toString("hex")
  let settle: (result: { token?: string; error?: CliError }) => void = () => undefined
  const result = new Promise<{ token?: string; error?: CliError }>((resolve) => (settle = resolve))
  const listener = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (url.pathname !== "/callback" || url.searchParams.get("nonce") !== nonce) {
      res.writeHead(404, { "content-type": "text/html" }).end(PAGE("Not this sign-in."))
      return
    }
    const token = url.searchParams.get("token")
    if (!token) {
      res.writeHead(400, { "content-type": "text/html" }).end(PAGE("The sign-in returned no token. Run lore login --sso again."))
      settle({ error: new CliError(ExitCode.notAuthenticated, "SSO_FAILED", "the single sign-on returned no token") })
      return
    }
    res.writeHead(200, { "content-type": "text/html" }).end(PAGE("Signed in to Lore. You can close this window and return to the terminal."))
    settle({ token })
  })
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve))
  const port = (listener.address() as AddressInfo).port
  const url = ssoStartUrl(server, { cliRedirect: `http://127.0.0.1:${port}/callback?nonce=${nonce}` })
  options.announce(url)
  if (options.openBrowser) openBrowser(url)
  const timer = setTimeout(() => settle({ error: new CliError(ExitCode.notAuthenticated, "SSO_TIMEOUT", "no sign-in arrived in time; run lore login --sso again") }), options.timeoutMs)
  try {
    const outcome = await result
    if (outcome.error) throw outcome.error
    return outcome.token!
  } finally {
    clearTimeout(timer)
    listener.close()
  }
}
