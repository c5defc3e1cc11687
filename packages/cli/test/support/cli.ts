import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..")
export const binary = join(cliDir, "dist", "lore.js")

/** The tests run the built binary; `npm test` builds it first, a lone `vitest` run builds it here. */
export const ensureBuilt = () => {
  if (!existsSync(binary)) execFileSync("npx", ["tsup"], { cwd: cliDir, stdio: "ignore", timeout: 120_000 })
}

export interface LoreRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** stdout parsed as one JSON document (throws when it is not exactly that). */
  readonly json: () => any
}

/** A fresh, empty config home (XDG_CONFIG_HOME) for one test. */
export const newConfigHome = () => mkdtempSync(join(tmpdir(), "lore-cli-config-"))

/**
 * Runs `node dist/lore.js ...args` with stdin a pipe (never a terminal), only the given environment
 * (no LORE_* leaking in from the developer's shell), and a hard timeout so a prompt can never hang a test.
 */
export const lore = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string | undefined>; readonly input?: string; readonly timeoutMs?: number } = {}
): Promise<LoreRun> =>
  new Promise((resolve, reject) => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir() }
    for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value
    const child = spawn(process.execPath, [binary, ...args], { env, stdio: ["pipe", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`lore ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, options.timeoutMs ?? 30_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({
        code,
        stdout,
        stderr,
        json: () => {
          try {
            return JSON.parse(stdout)
          } catch {
            throw new Error(`stdout is not one JSON document:\n${stdout}\nstderr: ${stderr}`)
          }
        }
      })
    })
    child.stdin.end(options.input ?? "")
  })

// eslint-disable-next-line no-control-regex
export const ANSI = /\u001b\[|\u009b/

/** A port on which nothing listens: bound, read, then released. */
export const closedPort = async () => {
  const { createServer } = await import("node:net")
  return new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}
