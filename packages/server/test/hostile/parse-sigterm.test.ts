import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { noise, postZip, skillZip } from "./support"

/**
 * Issue 29, finding 2: with 1.5M metadata keys the server ignored SIGTERM (the event loop never came back).
 * The built server (`npm start`'s dist/main.js, parse worker beside it) is started as its own process, given a
 * long document to ingest and a costly skill to inspect, both busy in parse workers under a long time limit,
 * then sent SIGTERM: it must be gone within 10 s.
 */

const root = fileURLToPath(new URL("../../../..", import.meta.url))
const main = join(root, "packages/server/dist/main.js")
const token = `lore_pat_sigterm${"x".repeat(32)}`

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let child: ChildProcess
let url: string
let dataDir: string
let exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>

beforeAll(async () => {
  expect(existsSync(main), `${main} is missing: run npm run build first`).toBe(true)
  dataDir = mkdtempSync(join(tmpdir(), "lore-sigterm-"))
  const port = await freePort()
  url = `http://127.0.0.1:${port}`
  const { DATABASE_URL: _ignored, LORE_DATABASE_URL: _alsoIgnored, ...env } = process.env
  child = spawn(process.execPath, [main], {
    cwd: root,
    env: { ...env, LORE_DATA_DIR: dataDir, LORE_PORT: String(port), LORE_HOST: "127.0.0.1", LORE_BOOTSTRAP_TOKEN: token, LORE_LOG_LEVEL: "warning", LORE_PARSE_TIMEOUT: "5 minutes" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk) => void (stderr = (stderr + String(chunk)).slice(-4_000)))
  exited = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })))
  // First start migrates an embedded database: slow on a busy machine.
  const deadline = Date.now() + 170_000
  for (;;) {
    const up = await fetch(`${url}/api/health`).then((r) => r.status === 200, () => false)
    if (up) break
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the built server did not start: ${stderr}`)
    await sleep(200)
  }
}, 180_000)

afterAll(async () => {
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  rmSync(dataDir, { recursive: true, force: true })
})

describe("SIGTERM with parse workers busy on hostile input", { timeout: 120_000 }, () => {
  it("stops the built server within 10 s", async () => {
    const auth = { authorization: `Bearer ${token}` }
    const [space] = (await (await fetch(`${url}/api/knowledge-spaces/upload-targets`, { headers: auth })).json()) as Array<{ id: string }>
    // 8 MB of prose: seconds of CommonMark parsing in a worker, and few chunks (long paragraphs, no headings).
    const paragraph = (i: number) => Array.from({ length: 40 }, (_, j) => `The ferry leaves at ${i} o'clock from pier ${j} with the crew.`).join("\n")
    const markdown = Array.from({ length: 3_200 }, (_, i) => paragraph(i)).join("\n\n")
    const form = new FormData()
    form.append("file", new Blob([markdown], { type: "text/markdown" }), "long.md")
    const uploaded = await fetch(`${url}/api/sources?knowledgeSpaceId=${space!.id}&classification=INTERNAL`, { method: "POST", headers: auth, body: form })
    expect(uploaded.status).toBe(201)
    const sourceId = ((await uploaded.json()) as { id: string }).id
    for (let tries = 0; ; tries++) {
      const source = (await (await fetch(`${url}/api/sources/${sourceId}`, { headers: auth })).json()) as { status: string }
      if (source.status === "PROCESSING") break
      expect(source.status).not.toBe("READY")
      if (tries > 300) throw new Error(`the ingestion did not start: ${source.status}`)
      await sleep(100)
    }
    // A costly skill in flight too; its request ends when the server goes.
    const inFlight = postZip(`${url}/api/assets/skills/inspections`, token, skillZip("heavy", "name: heavy\ndescription: Large data.", { "data.bin": noise(20 * 1024 * 1024 - 1024) })).catch((error: unknown) => error)
    await sleep(1_500)
    expect(child.exitCode).toBeNull()

    const sent = performance.now()
    child.kill("SIGTERM")
    const outcome = await Promise.race([exited, sleep(10_000).then(() => "still running" as const)])
    expect(outcome, "the server was still running 10 s after SIGTERM").not.toBe("still running")
    expect(performance.now() - sent).toBeLessThan(10_000)
    await inFlight
  })
})
