/**
 * Lore for bench/search.ts: running it in a child process (bench/lib/me-servers.ts "lore" mode, as bench/me.ts
 * does) and ingesting through its HTTP API, the way users upload: POST /api/sources, then waiting for READY.
 */
import { fileURLToPath } from "node:url"
import { chunkDocument, parseDocument } from "../../packages/server/src/knowledge/parsing/index"
import { startChild } from "./child"
import type { SyntheticDocument } from "./corpus"

const LORE_CHILD = fileURLToPath(new URL("./me-servers.ts", import.meta.url))

export interface Ingested {
  readonly via: "HTTP" | "direct" | "synthesized"
  readonly documents: number
  readonly pages: number
  readonly chunks: number
  readonly seconds: number
}

/** Lore in a child process, with the bench token as its bootstrap admin token. */
export const startLore = async (dataDir: string, token: string, databaseUrl: string | undefined) => {
  const child = await startChild(LORE_CHILD, ["lore", dataDir, token, ...(databaseUrl ? [databaseUrl] : [])])
  const headers = { authorization: `Bearer ${token}` }
  const api = async <A>(path: string): Promise<A> => {
    // A GET is sent again once when the connection it reused was closed: the server closes idle keep-alive
    // sockets after 5 s, and a bench busy preparing its corpus may not have seen the close before reusing one.
    const get = () => fetch(`${child.url}${path}`, { headers })
    const response = await get().catch((error) => (error?.cause?.code === "UND_ERR_SOCKET" ? get() : Promise.reject(error)))
    if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`)
    return (await response.json()) as A
  }
  /** A JSON request as the bench admin; throws on a non-2xx answer. */
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${child.url}${path}`, {
      method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
    return text ? JSON.parse(text) : undefined
  }
  return { child, headers, api, call }
}
export type Lore = Awaited<ReturnType<typeof startLore>>

/** The next documents of the corpus until the chunker (Lore's own) has made at least `chunks` chunks. */
export const takeChunks = async (corpus: Iterator<SyntheticDocument>, chunks: number) => {
  const taken: SyntheticDocument[] = []
  for (let made = 0; made < chunks; ) {
    const document = corpus.next().value as SyntheticDocument
    const parsed = await parseDocument(new TextEncoder().encode(document.text), "text/plain")
    if (!parsed.ok) throw new Error(parsed.error.message)
    made += chunkDocument(parsed.document, { sourceRevisionId: "00000000-0000-4000-8000-000000000000" }).length
    taken.push(document)
  }
  return taken
}

/** Uploads through POST /api/sources and waits until every source is READY (or ATTENTION). */
/** Sources READY or in ATTENTION, in all. */
const settledSources = async (lore: Lore) => {
  const page = await lore.api<{ statusCounts: { ready: number; attention: number } }>("/api/sources?pageSize=1")
  return page.statusCounts.ready + page.statusCounts.attention
}

export const ingestOverHttp = async (lore: Lore, spaceId: string, docs: ReadonlyArray<SyntheticDocument>, concurrency: number): Promise<Ingested> => {
  const started = performance.now()
  // Sources uploaded before these count as settled already: wait for these on top of them, not for docs.length in all.
  const settledBefore = await settledSources(lore)
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < docs.length) {
        const document = docs[next++]!
        const form = new FormData()
        form.append("file", new Blob([document.text], { type: "text/plain" }), document.fileName)
        // On a machine loaded far past its cores, the server may drop an upload whose body stalls (LORE_BODY_TIMEOUT_MS, 10 s):
        // the connection resets before anything was stored, so the upload is sent again.
        const upload = () => fetch(`${lore.child.url}/api/sources?knowledgeSpaceId=${spaceId}&classification=INTERNAL`, {
          method: "POST",
          headers: lore.headers,
          body: form
        })
        let response: Response | undefined
        for (let attempt = 1; response === undefined; attempt++) {
          response = await upload().catch((error: Error) => {
            if (attempt >= 3) throw error
            return undefined
          })
        }
        if (!response.ok) throw new Error(`upload ${document.fileName}: ${response.status} ${await response.text()}`)
        await response.arrayBuffer()
      }
    })
  )
  while ((await settledSources(lore)) < settledBefore + docs.length) await new Promise((resolve) => setTimeout(resolve, 100))
  const seconds = (performance.now() - started) / 1000
  const totals = await sourceTotals(lore)
  if (totals.attention > 0) throw new Error(`${totals.attention} uploads ended in ATTENTION`)
  return { via: "HTTP", documents: docs.length, pages: totals.pages, chunks: totals.chunks, seconds }
}

/** pageCount and chunkCount summed over every source, as the API reports them. */
export const sourceTotals = async (lore: Lore) => {
  let pages = 0
  let chunks = 0
  let attention = 0
  let cursor: string | null = null
  do {
    const page: { items: Array<{ pageCount: number | null; chunkCount: number | null; status: string }>; nextCursor: string | null } =
      await lore.api(`/api/sources?pageSize=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
    for (const item of page.items) {
      pages += item.pageCount ?? 0
      chunks += item.chunkCount ?? 0
      if (item.status === "ATTENTION") attention++
    }
    cursor = page.nextCursor
  } while (cursor)
  return { pages, chunks, attention }
}
