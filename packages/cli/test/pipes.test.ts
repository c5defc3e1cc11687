import { spawn } from "node:child_process"
import { beforeAll, describe, expect, it } from "vitest"
import { binary, ensureBuilt } from "./support/cli"

beforeAll(() => ensureBuilt())

describe("a reader that closes the pipe early", () => {
  it("ends lore quietly with exit 0 (as in `lore admin --help | head -1`)", async () => {
    const child = spawn(process.execPath, [binary, "admin", "--help"], { env: { PATH: process.env.PATH ?? "" }, stdio: ["ignore", "pipe", "pipe"] })
    child.stdout.destroy() // closed before lore writes a byte: its first write meets EPIPE
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(stderr).not.toMatch(/EPIPE|Unhandled/)
    expect(code).toBe(0)
  })
})
