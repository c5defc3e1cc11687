import { createLoreClient } from "@lore/sdk"

const hours = Number((process.argv[2] ?? "24h").replace(/h$/, ""))
const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787", token: process.env.LORE_TOKEN })

const since = new Date(Date.now() - hours * 3_600_000)
const counts = new Map<string, number>()
for await (const event of lore.admin.audit.all({ since })) {
  const key = `${event.actorEmail ?? "system"}  ${event.action}`
  counts.set(key, (counts.get(key) ?? 0) + 1)
}
for (const [key, count] of [...counts].sort((a, b) => b[1] - a[1])) console.log(`${String(count).padStart(5)}  ${key}`)
