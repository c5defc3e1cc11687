import { afterEach, describe, expect, it } from "vitest"
import { createLoreClient, LoreApiError, type Source } from "../src/index"
import { json, problem, startStub } from "./support/stubServer"

const ID = "00000000-0000-4000-8000-0000000000aa"
const at = (status: string, extra: Record<string, unknown> = {}) => json(200, { id: ID, status, failureCode: null, failureMessage: null, ...extra })

describe("sources.waitUntilSettled", () => {
  let stub: Awaited<ReturnType<typeof startStub>> | undefined
  afterEach(async () => {
    await stub?.close()
    stub = undefined
  })
  const client = () => createLoreClient({ baseUrl: stub!.url, token: "lore_pat_test", retry: { baseDelayMs: 1 } })

  it("polls until READY, reporting each change of status once", async () => {
    stub = await startStub(at("PROCESSING"), at("PROCESSING"), at("PROCESSING"), at("READY", { chunkCount: 3 }))
    const seen: Array<string> = []
    const source = await client().sources.waitUntilSettled(ID, { intervalMs: 20, onStatus: (s: Source) => seen.push(s.status) })
    expect(source).toMatchObject({ id: ID, status: "READY", chunkCount: 3 })
    expect(seen).toEqual(["PROCESSING", "READY"])
    expect(stub.seen.map((r) => `${r.method} ${r.url}`)).toEqual(Array(4).fill(`GET /api/sources/${ID}`))
    // it waited between polls
    expect(stub.seen[3]!.at - stub.seen[0]!.at).toBeGreaterThanOrEqual(55)
  })

  it("stops at ATTENTION and hands back the failure", async () => {
    stub = await startStub(at("PROCESSING"), at("ATTENTION", { failureCode: "PARSE_FAILED", failureMessage: "The PDF is encrypted" }))
    const source = await client().sources.waitUntilSettled(ID, { intervalMs: 1 })
    expect(source).toMatchObject({ status: "ATTENTION", failureCode: "PARSE_FAILED", failureMessage: "The PDF is encrypted" })
  })

  it("gives up after timeoutMs with WAIT_TIMEOUT", async () => {
    stub = await startStub(at("PROCESSING"))
    const started = Date.now()
    const error = await client().sources.waitUntilSettled(ID, { intervalMs: 10, timeoutMs: 80 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(LoreApiError)
    expect(error).toMatchObject({ code: "WAIT_TIMEOUT", status: 0 })
    expect(Date.now() - started).toBeLessThan(1000)
    expect(stub.seen.length).toBeGreaterThanOrEqual(3)
  })

  it("rejects with the signal's reason when aborted between polls", async () => {
    stub = await startStub(at("PROCESSING"))
    const controller = new AbortController()
    setTimeout(() => controller.abort(new Error("user pressed Ctrl-C")), 50)
    await expect(client().sources.waitUntilSettled(ID, { intervalMs: 10_000, signal: controller.signal })).rejects.toThrow("user pressed Ctrl-C")
    expect(stub.seen).toHaveLength(1)
  })

  it("passes a server error through (a source that disappeared)", async () => {
    stub = await startStub(at("PROCESSING"), problem(404, "SOURCE_NOT_FOUND"))
    await expect(client().sources.waitUntilSettled(ID, { intervalMs: 1 })).rejects.toMatchObject({ status: 404, code: "SOURCE_NOT_FOUND" })
  })
})
