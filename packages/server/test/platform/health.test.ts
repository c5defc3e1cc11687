import { createLoreClient } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(() => server?.dispose())

describe("platform", () => {
  it("/api/health reports database kind, vector support, migration level and version, all strings, without credentials", async () => {
    const health = await createLoreClient({ baseUrl: server.url }).platform.health()
    expect(health.status).toBe("ok")
    expect(health.database).toBe(process.env.DATABASE_URL ? "postgresql" : "embedded")
    expect(["pgvector", "exact-cosine"]).toContain(health.vectorStore)
    // Without an embedding model there is no vector search, whatever the store could do.
    expect(health.vectorSearch).toBe("off")
    expect(health.embeddingModel).toBe("none")
    expect(health.embeddingSource).toBe("none")
    // PGlite always ships pgvector
    if (!process.env.DATABASE_URL) expect(health.vectorStore).toBe("pgvector")
    expect(Number(health.migrationLevel)).toBeGreaterThanOrEqual(1)
    expect(health.version).toMatch(/^\d+\.\d+\.\d+/)
    for (const value of Object.values(health)) expect(typeof value).toBe("string")
  })

  it("serves the OpenAPI document at /api/openapi.json", async () => {
    const response = await fetch(`${server.url}/api/openapi.json`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^application\/json/)
    const document = (await response.json()) as { openapi: string; paths: Record<string, unknown> }
    expect(document.openapi).toMatch(/^3\.1/)
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(["/api/health", "/api/me", "/api/me/tokens"]))
  })

  it("serves an HTML API reference at /docs", async () => {
    const response = await fetch(`${server.url}/docs`)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/^text\/html/)
    expect((await response.text()).toLowerCase()).toContain("<html")
  })
})
