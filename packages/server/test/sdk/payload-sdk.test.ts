import { createLoreClient, LoreApiError, type LoreClient, type PromptTemplateBody } from "@lore/sdk"
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest"
import { startTestServer, type TestServer } from "../support/server"

/**
 * Issue 33.8: `lore.assets.payload.parse(type, text)` and `.stringify(type, body)`, typed from the OpenAPI
 * components the server publishes; the wire keeps `payload` a string and the server still validates (422).
 * The type assertions are checked by `tsc -b`.
 */
describe("SDK asset payload helpers", () => {
  let server: TestServer
  let lore: LoreClient
  let spaceId: string

  beforeAll(async () => {
    server = await startTestServer()
    lore = createLoreClient({ baseUrl: server.url, token: server.adminToken })
    spaceId = (await lore.admin.spaces.create({ key: "payloads", name: "Payloads" })).id
  })
  afterAll(() => server.dispose())

  const body: PromptTemplateBody = {
    objective: "Brief a traveller",
    audience: "Travellers",
    systemInstruction: "You brief travellers.",
    userTemplate: "Brief me on {{country}}.",
    variables: [{ name: "country", type: "STRING", required: true, sensitive: false }],
    outputContract: {},
    knowledgeRequirements: [],
    knownLimitations: ""
  }

  it("types each asset type's payload and round-trips it through a real draft", async () => {
    expectTypeOf(lore.assets.payload.parse("PROMPT_TEMPLATE", "{}")).toEqualTypeOf<PromptTemplateBody>()
    expectTypeOf(lore.assets.payload.parse("WORK_INSTRUCTION", "{}").steps).not.toBeAny()
    // @ts-expect-error a prompt template's body is not a work instruction's
    lore.assets.payload.stringify("WORK_INSTRUCTION", body)
    // @ts-expect-error a misspelled field does not type-check
    lore.assets.payload.stringify("PROMPT_TEMPLATE", { ...body, userTemplat: "x" })

    const asset = await lore.assets.create({
      type: "PROMPT_TEMPLATE", namespace: "sdk", slug: "brief", knowledgeSpaceId: spaceId,
      draft: { title: "Brief", summary: "", classification: "INTERNAL", schemaVersion: "1", payload: lore.assets.payload.stringify("PROMPT_TEMPLATE", body) }
    })
    const read = lore.assets.payload.parse("PROMPT_TEMPLATE", asset.draft!.payload)
    expect(read.userTemplate).toBe("Brief me on {{country}}.")
    expect(read.variables.map((variable) => variable.name)).toEqual(["country"])
  })

  it("is typed only: the server still refuses an invalid body with 422 and errors[]", async () => {
    const broken = { ...body, userTemplate: "Brief me on {{nation}}." }
    const refused = await lore.assets.create({
      type: "PROMPT_TEMPLATE", namespace: "sdk", slug: "broken", knowledgeSpaceId: spaceId,
      draft: { title: "Broken", summary: "", classification: "INTERNAL", schemaVersion: "1", payload: lore.assets.payload.stringify("PROMPT_TEMPLATE", broken) }
    }).catch((error: unknown) => error)
    expect(LoreApiError.is(refused) && refused.status).toBe(422)
    expect((refused as LoreApiError).errors?.some((e) => e.path === "payload.userTemplate")).toBe(true)
  })

  it("refuses text that is not a JSON object, before anything is sent", () => {
    for (const text of ["not json", "[1,2]", "null", "42", "\"a string\"", "{".repeat(10)]) {
      let thrown: unknown
      try {
        lore.assets.payload.parse("PROMPT_TEMPLATE", text)
      } catch (error) {
        thrown = error
      }
      expect(LoreApiError.is(thrown) && thrown.code, text).toBe("INVALID_ARGUMENT")
    }
    expect(() => lore.assets.payload.parse("WORK_INSTRUCTION", " ".repeat(5 * 1024 * 1024))).toThrow(/at most/)
    // A deeply nested object is still just JSON: parsed, never evaluated.
    expect(lore.assets.payload.parse("CAPABILITY_PACK", `{"a":${"[".repeat(2000)}${"]".repeat(2000)}}`)).toHaveProperty("a")
  })
})
