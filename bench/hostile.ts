/**
 * Issue 29's worst-case inputs against a Lore server (its own child process, embedded PGlite, default parse
 * settings: 2 workers, 30 s): for each, /api/health is polled every 20 ms from this process while the input is
 * processed, and the time until the input is refused (a skill's answer, a document's ATTENTION) is taken.
 * Targets: health p99 under 100 ms, refusal under 2 s. Prints one table; never asserts on timing.
 */
import { randomBytes } from "node:crypto"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { zipSync, type Zippable } from "fflate"
import { PDFDocument } from "pdf-lib"
import { startChild } from "./lib/child"
import { percentile } from "./lib/latency"

export const description = "hostile inputs: /api/health p99 while each is processed, and the time to refuse it"

const SERVER = fileURLToPath(new URL("./lib/hostile-server.ts", import.meta.url))
const text = (value: string) => new TextEncoder().encode(value)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const skill = (frontmatter: string, extra: Zippable = {}) =>
  zipSync({ "hostile/SKILL.md": text(`---\nname: hostile\ndescription: Attacks the parser.\n${frontmatter}\n---\n# Steps\n`), ...extra })

const metadataKeys = (n: number, short = false) => `metadata:\n${Array.from({ length: n }, (_, i) => (short ? `  k${i}: v` : `  key${i}: value${i}`)).join("\n")}`
const billionLaughs = () => {
  let yaml = "metadata:\n  a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
  for (let i = 1; i < 10; i++) yaml += `  a${i}: &a${i} [${Array(9).fill(`*a${i - 1}`).join(", ")}]\n`
  return yaml.trimEnd()
}
const twelveAliases = () => `metadata:\n  owner: &owner ops\n${Array.from({ length: 12 }, (_, i) => `  copy${i}: *owner`).join("\n")}`

interface Case {
  readonly name: string
  readonly kind: "skill" | "document"
  readonly make: () => Promise<{ bytes: Uint8Array; fileName: string; type: string }>
}

const zipCase = (name: string, build: () => Uint8Array): Case => ({ name, kind: "skill", make: async () => ({ bytes: build(), fileName: "skill.zip", type: "application/zip" }) })
const docCase = (name: string, fileName: string, type: string, build: () => Promise<Uint8Array> | Uint8Array): Case => ({ name, kind: "document", make: async () => ({ bytes: await build(), fileName, type }) })

const cases: ReadonlyArray<Case> = [
  zipCase("skill: 40,000 metadata keys (469 KB)", () => skill(metadataKeys(40_000))),
  zipCase("skill: 1,500,000 metadata keys", () => skill(metadataKeys(1_500_000, true))),
  zipCase("skill: billion-laughs aliases", () => skill(billionLaughs())),
  zipCase("skill: 12 aliases", () => skill(twelveAliases())),
  zipCase("skill: 28 MB incompressible (valid, costly)", () => skill("", Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`hostile/data${i}.bin`, [randomBytes(7 * 1024 * 1024), { level: 0 }]])) as Zippable)),
  docCase("markdown: 200,000 `a*` (emphasis bomb)", "bomb.md", "text/markdown", () => text(`# Bomb\n\n${"a*".repeat(200_000)}\n`)),
  docCase("markdown: 2 MB quoted 60 deep", "quotes.md", "text/markdown", () => text(`${"> ".repeat(60)}word\n`.repeat(16_000))),
  docCase("html: 200,000 nested divs", "deep.html", "text/html", () => text(`<html><body>${"<div>".repeat(200_000)}x</body></html>`)),
  docCase("pdf: 2,001 pages", "pages.pdf", "application/pdf", async () => {
    const pdf = await PDFDocument.create()
    for (let i = 0; i < 2_001; i++) pdf.addPage([100, 100])
    return pdf.save()
  }),
  docCase("markdown: 8 MB prose (valid, costly)", "prose.md", "text/markdown", () =>
    text(Array.from({ length: 3_200 }, (_, i) => Array.from({ length: 40 }, (_, j) => `The ferry leaves at ${i} o'clock from pier ${j} with the crew.`).join("\n")).join("\n\n")))
]

/** Polls /api/health every 20 ms until stopped; answers the latencies (ms). */
const pollHealth = (url: string) => {
  const latencies: number[] = []
  let running = true
  const done = (async () => {
    while (running) {
      const started = performance.now()
      await fetch(`${url}/api/health`).then((r) => r.arrayBuffer(), () => undefined)
      latencies.push(performance.now() - started)
      await sleep(20)
    }
  })()
  return { stop: async () => ((running = false), await done, latencies) }
}

export default async () => {
  const token = `lore_pat_bench${randomBytes(16).toString("hex")}`
  const server = await startChild(SERVER, [token])
  const auth = { authorization: `Bearer ${token}` }
  const rows: string[] = []
  try {
    const [space] = (await (await fetch(`${server.url}/api/knowledge-spaces/upload-targets`, { headers: auth })).json()) as Array<{ id: string }>
    // Warm-up: one ordinary skill and document, so the first case does not pay for cold code and workers.
    const warm = new FormData()
    warm.append("file", new Blob([skill("") as Uint8Array<ArrayBuffer>], { type: "application/zip" }), "skill.zip")
    await (await fetch(`${server.url}/api/assets/skills/inspections`, { method: "POST", headers: auth, body: warm })).arrayBuffer()
    // Baseline: health alone for 3 s, nothing else to do (the machine's own load shows here).
    const idle = pollHealth(server.url)
    await sleep(3_000)
    const idleLatencies = (await idle.stop()).sort((a, b) => a - b)
    rows.push(`| (nothing: health alone) | | | | ${percentile(idleLatencies, 0.5).toFixed(1)} | ${percentile(idleLatencies, 0.99).toFixed(1)} | ${idleLatencies.at(-1)!.toFixed(1)} | ${idleLatencies.length} |`)
    console.log(rows.at(-1))
    for (const test of cases) {
      const input = await test.make()
      const form = new FormData()
      form.append("file", new Blob([input.bytes as Uint8Array<ArrayBuffer>], { type: input.type }), input.fileName)
      const health = pollHealth(server.url)
      const started = performance.now()
      let outcome = ""
      try {
      if (test.kind === "skill") {
        // A kept-alive socket the server just closed fails the write (EPIPE) before the server sees anything: once more.
        const post = () => fetch(`${server.url}/api/assets/skills/inspections`, { method: "POST", headers: auth, body: form })
        const reply = await post().catch(post)
        const body = (await reply.json()) as { errors?: Array<{ code: string }> }
        outcome = `${reply.status} ${(body.errors ?? []).map((e) => e.code).slice(0, 2).join(",")}`
      } else {
        const reply = await fetch(`${server.url}/api/sources?knowledgeSpaceId=${space!.id}&classification=INTERNAL`, { method: "POST", headers: auth, body: form })
        const { id } = (await reply.json()) as { id: string }
        for (;;) {
          const source = (await (await fetch(`${server.url}/api/sources/${id}`, { headers: auth })).json()) as { status: string; failureCode: string | null }
          if (source.status === "READY" || source.status === "ATTENTION") {
            outcome = `${source.status} ${source.failureCode ?? ""}`
            break
          }
          await sleep(25)
        }
      }
      } catch (error) {
        outcome = `request failed: ${error instanceof Error ? (error.cause as Error | undefined)?.message ?? error.message : String(error)}`
      }
      const refusedMs = performance.now() - started
      const latencies = (await health.stop()).sort((a, b) => a - b)
      rows.push(`| ${test.name} | ${(input.bytes.length / 1024).toFixed(0)} KB | ${outcome.trim()} | ${refusedMs.toFixed(0)} | ${percentile(latencies, 0.5).toFixed(1)} | ${percentile(latencies, 0.99).toFixed(1)} | ${latencies.at(-1)!.toFixed(1)} | ${latencies.length} |`)
      console.log(rows.at(-1))
    }
  } finally {
    await server.stop()
  }
  console.log(`\nload average at the end: ${loadavg().map((n) => n.toFixed(1)).join(", ")} (2 cores)\n`)
  console.log("| input | size | outcome | processed in (ms) | health p50 (ms) | health p99 (ms) | health max (ms) | health polls |")
  console.log("|---|---|---|---|---|---|---|---|")
  for (const row of rows) console.log(row)
}
