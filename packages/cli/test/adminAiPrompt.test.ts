import { spawn } from "node:child_process"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startFakeProviders, type FakeProviders } from "../../test-support/aiProviders"
import { serveLore, type ServedLore } from "./support/serve"
import { binary, ensureBuilt, lore, newConfigHome } from "./support/cli"

const KEY = "sk-typed-at-a-hidden-prompt-31337"

let server: ServedLore
let providers: FakeProviders
let home: string

beforeAll(async () => {
  ensureBuilt()
  providers = await startFakeProviders({ apiKey: KEY })
  server = await serveLore()
  home = newConfigHome()
  const login = await lore(["login", "--server", server.url, "--token", server.adminToken], { env: { XDG_CONFIG_HOME: home } })
  expect(login.code, login.stderr).toBe(0)
  const added = await lore(["admin", "ai", "gateways", "add", "typed", "--preset", "openai-compatible", "--base-url", `${providers.url}/v1`], { env: { XDG_CONFIG_HOME: home } })
  expect(added.code, added.stderr).toBe(0)
})
afterAll(async () => {
  await server?.stop()
  await providers?.close()
})

// eslint-disable-next-line no-control-regex
const plain = (text: string) => text.replace(/\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007/g, "")

/** Runs the command on a pseudo-terminal (util-linux `script`), types `typed` once the prompt shows, and collects what the terminal showed. */
const onTerminal = (args: ReadonlyArray<string>, typed: string) =>
  new Promise<{ code: number | null; screen: string }>((resolve, reject) => {
    const command = [process.execPath, binary, ...args].map((part) => `'${part.replace(/'/g, "'\\''")}'`).join(" ")
    // A pipe-fed `script` makes a terminal of 0 columns; give it a size so Ink lays text out in lines.
    const child = spawn("script", ["-qefc", `stty cols 120 rows 40; ${command}`, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", XDG_CONFIG_HOME: home, TERM: "xterm" },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let screen = ""
    let sent = false
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`timed out; the terminal showed:\n${screen}`))
    }, 20_000)
    const seen = (chunk: Buffer) => {
      screen += chunk.toString("utf8")
      if (!sent && plain(screen).includes("API key for typed")) {
        sent = true
        // Type like a person: the characters, then Enter on its own (Ink reads one chunk as one input).
        setTimeout(() => child.stdin.write(typed), 300)
        setTimeout(() => child.stdin.write("\r"), 800)
      }
    }
    child.stdout.on("data", seen)
    child.stderr.on("data", seen)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, screen })
    })
  })

it("asks for the API key on a terminal without echoing it, and stores it", async () => {
  const { code, screen } = await onTerminal(["admin", "ai", "gateways", "credential", "typed"], KEY)
  expect(code, screen).toBe(0)
  expect(plain(screen)).toContain("API key for typed")
  expect(plain(screen)).toContain("Stored the API key of typed")
  expect(screen).not.toContain(KEY)
  const tested = await lore(["admin", "ai", "gateways", "test", "typed", "--json"], { env: { XDG_CONFIG_HOME: home } })
  expect(tested.code, tested.stderr).toBe(0)
  expect(tested.json()).toMatchObject({ authenticated: true })
})
