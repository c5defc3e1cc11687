import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binary, cliDir, ensureBuilt, lore, newConfigHome } from "./support/cli"

// `lore serve` loads the BUILT server (packages/server/dist); `npm test` builds it before vitest.
const serverBuilt = existsSync(join(cliDir, "..", "server", "dist", "index.js"))
const dataDir = mkdtempSync(join(tmpdir(), "lore-cli-serve-"))

beforeAll(() => ensureBuilt())
afterAll(() => rmSync(dataDir, { recursive: true, force: true }))

describe.skipIf(!serverBuilt)("lore serve", () => {
  it("runs the server until SIGTERM, printing one ready line with --json, then stops cleanly", async () => {
    const token = `lore_pat_serve${Math.random().toString(36).slice(2)}${"x".repeat(24)}`
    const child = spawn(process.execPath, [binary, "serve", "--json", "--port", "0", "--data-dir", dataDir], {
      env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), LORE_BOOTSTRAP_TOKEN: token, LORE_LOG_LEVEL: "warning" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve))
    try {
      const ready = await new Promise<{ url: string; dataDir: string; database: string }>((resolve, reject) => {
        let stdout = ""
        const timer = setTimeout(() => reject(new Error(`no ready line\nstderr: ${stderr}`)), 90_000)
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          stdout += chunk
          const newline = stdout.indexOf("\n")
          if (newline >= 0) {
            clearTimeout(timer)
            resolve(JSON.parse(stdout.slice(0, newline)))
          }
        })
        child.on("close", (code) => reject(new Error(`serve exited ${code}\nstderr: ${stderr}`)))
      })
      expect(ready).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), dataDir, database: "embedded" })
      expect(stderr).toContain(token) // the first-start banner

      const whoami = await lore(["whoami", "--json"], { env: { XDG_CONFIG_HOME: newConfigHome(), LORE_SERVER: ready.url, LORE_TOKEN: token } })
      expect(whoami.code, whoami.stderr).toBe(0)
      expect(whoami.json().email).toBe("admin@lore.local")
    } finally {
      child.kill("SIGTERM")
    }
    expect(await exited).toBe(0)
    expect(stderr).toContain("Stopped.")
  })
})
