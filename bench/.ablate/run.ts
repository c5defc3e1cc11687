import { randomBytes } from "node:crypto"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { startChild } from "../lib/child"
import { load } from "../lib/load"
const token = `lore_pat_bench${randomBytes(24).toString("base64url")}`
const variants = process.argv[2]!.split(",")
const paths = (process.argv[3] ?? "me").split(",")
const usePg = process.argv[4] !== "embedded"
const name = `lore_ablate_${process.pid}`
let url: string | undefined
if (usePg) {
  const c = new pg.Client("postgres://postgres@127.0.0.1:5432/test"); await c.connect(); await c.query(`CREATE DATABASE ${name}`); await c.end()
  url = `postgres://postgres@127.0.0.1:5432/${name}`
}
const dataDir = mkdtempSync(join(tmpdir(), "lore-abl-"))
for (const variant of variants) {
  const s = variant === "bare"
    ? await startChild(new URL("../lib/me-servers.ts", import.meta.url).pathname, ["bare", dataDir, token, ...(url ? [url] : [])])
    : await startChild(new URL("./server.ts", import.meta.url).pathname, [variant, dataDir, token, ...(url ? [url] : [])])
  for (const p of paths) {
    const [path, auth] = p === "me" ? ["/api/me", true] : p === "me401" ? ["/api/me", false] : p === "csrf" ? ["/api/session/csrf", false] : [p, true]
    let c0 = 0, c1 = 0
    const f = await load({ url: s.url + path, headers: auth ? { authorization: `Bearer ${token}` } : {}, warmupSeconds: 1.5, durationSeconds: Number(process.env.D ?? 4),
      aroundMeasure: { before: async () => { c0 = await s.cpuMicros() }, after: async () => { c1 = await s.cpuMicros() } } })
    console.log(`${variant.padEnd(28)} ${p.padEnd(10)} ${Math.round(f.requestsPerSecond).toString().padStart(6)} req/s p50 ${f.p50Ms} p99 ${f.p99Ms} non2xx ${f.non2xx} cpu/req ${Math.round((c1 - c0) / f.requests)} us`)
  }
  await s.stop()
}
if (usePg) { const c = new pg.Client("postgres://postgres@127.0.0.1:5432/test"); await c.connect(); await c.query(`DROP DATABASE ${name} WITH (FORCE)`); await c.end() }
