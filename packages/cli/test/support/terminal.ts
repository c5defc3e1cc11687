import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { binary } from "./cli"

/**
 * Runs `lore` on a pseudo-terminal, as a person at a terminal would, with util-linux `script`: stdout and
 * stderr are the terminal (unless `stdoutTo` sends stdout to a file), of `columns` columns. Resolves with
 * the exit code and everything the terminal received, escape codes included.
 */

export const scriptPath = ["/usr/bin/script", "/bin/script"].find((path) => existsSync(path))

const quote = (value: string) => `'${value.replace(/'/g, `'\\''`)}'`

// eslint-disable-next-line no-control-regex
const ESCAPES = /\u001b\[[0-9;?]*[A-Za-z]|\u001b\][^\u0007]*\u0007|\r/g

/** The terminal's text without escape codes or carriage returns. */
export const screenText = (output: string) => output.replace(ESCAPES, "")

export const loreOnTerminal = (
  args: ReadonlyArray<string>,
  options: { readonly env?: Record<string, string | undefined>; readonly columns?: number; readonly stdoutTo?: string; readonly timeoutMs?: number } = {}
): Promise<{ readonly code: number | null; readonly output: string }> =>
  new Promise((resolve, reject) => {
    if (!scriptPath) return reject(new Error("util-linux script is not installed"))
    const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), TERM: "xterm-256color" }
    for (const [key, value] of Object.entries(options.env ?? {})) if (value !== undefined) env[key] = value
    const redirect = options.stdoutTo ? ` > ${quote(options.stdoutTo)}` : ""
    const line = `stty cols ${options.columns ?? 100} rows 50; exec ${quote(process.execPath)} ${quote(binary)} ${args.map(quote).join(" ")}${redirect}`
    const child = spawn(scriptPath, ["-qfec", line, "/dev/null"], { env, stdio: ["pipe", "pipe", "pipe"] })
    let output = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`lore ${args.join(" ")} timed out on the terminal\n${screenText(output)}`))
    }, options.timeoutMs ?? 60_000)
    child.on("error", reject)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ code, output })
    })
    // stdin stays open and silent: script passes it to the terminal, and an ended one would reach the
    // command as end-of-file, which a person at a terminal never sends.
  })
