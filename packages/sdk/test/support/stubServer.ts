import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface Seen {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
  /** The body's bytes, for binary uploads. */
  readonly raw: Buffer
  readonly at: number
}

export type Reply = (request: Seen, response: ServerResponse, index: number) => void

/** A scripted HTTP server on 127.0.0.1: answer i uses replies[i] (the last one repeats); records requests. */
export const startStub = async (...replies: Array<Reply>) => {
  const seen: Array<Seen> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      const raw = Buffer.concat(chunks)
      const entry = { method: request.method ?? "", url: request.url ?? "", headers: request.headers, body: raw.toString(), raw, at: Date.now() }
      seen.push(entry)
      const index = seen.length - 1
      replies[Math.min(index, replies.length - 1)]!(entry, response, index)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections() // requests left hanging on purpose (abort tests) end here
      })
  }
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => (_request, response) => {
  response.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(body))
}

export const problem = (status: number, code: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Reply =>
  (_request, response) => {
    const body = { type: `https://lore.dev/problems/${code.toLowerCase()}`, title: "Error", status, detail: `detail of ${code}`, code, requestId: "req-from-body", ...extra }
    response.writeHead(status, { "content-type": "application/problem+json", "x-request-id": "req-from-header", ...headers }).end(JSON.stringify(body))
  }

export const text = (status: number, body: string, headers: Record<string, string> = {}): Reply => (_request, response) => {
  response.writeHead(status, { "content-type": "text/html", ...headers }).end(body)
}
