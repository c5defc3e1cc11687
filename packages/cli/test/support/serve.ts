import { execFileSync, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { binary, cliDir, ensureBuilt } from "./cli"

const serverDir = join(cliDir, "..", "server")

export interface ServedLore {
  readonly url: string
  /** The bootstrap admin's token (admin@lore.local). */
  readonly token: string
  readonly dataDir: string
  /** SIGTERM, wait for a clean exit, remove the data dir. */
  readonly stop: () => Promise<void>
}

/** `lore serve` loads the built server; `npm test` builds it first, a lone vitest run builds it here. */
const ensureServerBuilt = () => {
  if (!existsSync(join(serverDir, "dist", "index.js"))) {
    execFileSync("npx", ["tsup"], { cwd: serverDir, stdio: "ignore", timeout: 180_000 })
  }
}

/**
 * Starts a Lore server the way a user does, `lore serve` from this repository's built CLI, as a child
 * process: on a free port, with an embedded database in a fresh temporary data dir and a known bootstrap
 * token. Resolves once the server prints its ready line. CLI tests use this (or their own process), never
 * the server's test files.
 */
export const serveLore = async (): Promise<ServedLore> => {
  ensureBuilt()
  ensureServerBuilt()
  const dataDir = mkdtempSync(join(tmpdir(), "lore-cli-served-"))
  const token = `lore_pat_served${Math.random().toString(36).slice(2)}${"x".repeat(24)}`
  const child = spawn(process.execPath, [binary, "serve", "--json", "--port", "0", "--data-dir", dataDir], {
    // Only what the server needs: no DATABASE_URL (embedded), no LORE_* from the developer's shell.
    env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), LORE_BOOTSTRAP_TOKEN: token, LORE_LOG_LEVEL: "warning" },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
    await exited
    rmSync(dataDir, { recursive: true, force: true })
  }
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = ""
      const timer = setTimeout(() => reject(new Error(`lore serve printed no ready line in 90 s\nstderr: ${stderr}`)), 90_000)
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk
        const newline = stdout.indexOf("\n")
        if (newline < 0) return
        clearTimeout(timer)
        resolve((JSON.parse(stdout.slice(0, newline)) as { url: string }).url)
      })
      child.once("close", (code) => {
        clearTimeout(timer)
        reject(new Error(`lore serve exited ${code} before it was ready\nstderr: ${stderr}`))
      })
    })
    return { url, token, dataDir, stop }
  } catch (error) {
    await stop()
    throw error
  }
}
