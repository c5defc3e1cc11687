import { describe, expect, it } from "vitest"
import { redactHeaders, retryDelayMs, wireRequest } from "../../src/ai/ChatWire"
import { extractiveAnswer, salientTerms } from "../../src/ai/LocalModel"

describe("chat wire rules", () => {
  it("waits what Retry-After asks (seconds or a date, at most 30 s), else backs off from 250 ms", () => {
    expect(retryDelayMs("2", 0)).toBe(2_000)
    expect(retryDelayMs("3600", 0)).toBe(30_000)
    const inFive = new Date(Date.now() + 5_000).toUTCString()
    expect(retryDelayMs(inFive, 0)).toBeGreaterThan(3_000)
    expect(retryDelayMs(inFive, 0)).toBeLessThanOrEqual(5_000)
    expect([0, 1, 2].map((attempt) => retryDelayMs(null, attempt))).toEqual([250, 500, 1_000])
    expect(retryDelayMs("soon", 1)).toBe(500)
  })

  it("redacts every header that carries a key", () => {
    expect(redactHeaders({ Authorization: "Bearer sk-1", "api-key": "az", "x-api-key": "an", "content-type": "application/json" }))
      .toEqual({ Authorization: "[redacted]", "api-key": "[redacted]", "x-api-key": "[redacted]", "content-type": "application/json" })
  })

  it("keeps a base URL's query (Azure's api-version) and path when adding the endpoint", () => {
    const wire = wireRequest({ protocol: "AZURE_OPENAI_COMPATIBLE", baseUrl: "https://x.openai.azure.com/openai/v1/?api-version=preview", modelId: "m", apiKey: "k", requestTimeoutSeconds: 5 }, { messages: [] }, true)
    expect(wire.url).toBe("https://x.openai.azure.com/openai/v1/chat/completions?api-version=preview")
    expect(wire.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })
})

describe("LOCAL", () => {
  it("cites passages by their position and lists each source once", () => {
    const answer = extractiveAnswer("How long is the notice period for leaving?", [
      { id: "a", title: "Pay", text: "Salaries are paid monthly." },
      { id: "b", title: "Leaving", text: "The notice period is one month. Leaving staff return their laptops." }
    ])
    expect(answer.citations).toEqual([{ index: 2, passageId: "b", title: "Leaving" }])
    expect(answer.text).toContain("\"The notice period is one month.\" [2]")
    // The sources travel as citations; the text does not list them again (issue 33.6: "Sources" shown twice).
    expect(answer.text).not.toMatch(/Sources/)
  })

  it("quotes a sentence several passages hold once, citing the first (issue 33.7)", () => {
    const overlap = "Flights need a manager's approval."
    const answer = extractiveAnswer("Do flights need a manager's approval?", [
      { id: "a", title: "Travel", text: `Trains are booked for short trips. ${overlap}` },
      { id: "b", title: "Travel (2)", text: `${overlap} Hotels are booked by the office.` },
      { id: "c", title: "Travel (3)", text: `${overlap}` }
    ])
    expect(answer.text.split(overlap)).toHaveLength(2)
    expect(answer.text).toContain(`"${overlap}" [1]`)
    expect(answer.citations.map((c) => c.passageId)).toEqual(["a"])
  })

  it("says nothing relevant was found when there are no passages", () => {
    expect(extractiveAnswer("anything at all?", []).text).toMatch(/nothing relevant/)
    expect(salientTerms("The THE the, and of")).toEqual([])
  })
})
