import { afterEach, describe, expect, expectTypeOf, it } from "vitest"
import {
  type ClientErrorCode,
  createLoreClient,
  type ErrorCode,
  isLoreError,
  LoreApiError,
  type LoreErrorCode,
  type SourcePage
} from "../src/index"
import { problem, startStub } from "./support/stubServer"

/**
 * Typed error codes. The `expectTypeOf` assertions and `@ts-expect-error` lines are checked by `tsc -b`
 * (this folder is part of the SDK's project): if narrowing broke, the type-check fails, not only a test.
 */

const stubs: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(stubs.splice(0).map((s) => s.close()))
})

describe("ErrorCode<operation>", () => {
  it("is the union of the codes the operation's problem+json answers declare, not string", () => {
    expectTypeOf<ErrorCode<"listSources">>().toEqualTypeOf<
      | "VALIDATION_FAILED"
      | "INVALID_CURSOR"
      | "UNAUTHENTICATED"
      | "MALFORMED_AUTHORIZATION"
      | "INVALID_TOKEN"
      | "SESSION_EXPIRED"
      | "USER_DEACTIVATED"
      | "INTERNAL_ERROR"
    >()
    expectTypeOf<string>().not.toExtend<ErrorCode<"listSources">>()
    expectTypeOf<"KNOWLEDGE_SPACE_NOT_FOUND">().toExtend<ErrorCode<"removeGrant">>()
    expectTypeOf<"GRANT_NOT_FOUND">().toExtend<ErrorCode<"removeGrant">>()
    expectTypeOf<"GRANT_NOT_FOUND">().not.toExtend<ErrorCode<"listSources">>()
    expectTypeOf<"SOURCE_NOT_FOUND">().toExtend<ErrorCode<"getSource">>()
    // The server's codes only: the SDK's own (NETWORK_ERROR, ...) are ClientErrorCode.
    expectTypeOf<"NETWORK_ERROR">().not.toExtend<ErrorCode<"getHealth">>()

    // @ts-expect-error not an endpoint of the API
    type Unknown = ErrorCode<"listSourcez">
    expectTypeOf<Unknown>().toBeNever()
    // @ts-expect-error GRANT_NOT_FOUND is not a code listSources can return
    const wrong = "GRANT_NOT_FOUND" satisfies ErrorCode<"listSources">
    expect(wrong).toBe("GRANT_NOT_FOUND")
  })

  it("covers the SDK's own codes in LoreErrorCode", () => {
    expectTypeOf<ClientErrorCode>().toExtend<LoreErrorCode>()
    expectTypeOf<"HTTP_502">().toExtend<LoreErrorCode>()
    expectTypeOf<ErrorCode<"uploadSource">>().toExtend<LoreErrorCode>()
  })
})

describe("isLoreError", () => {
  it("narrows an unknown error to a LoreApiError whose code is the one asked for", async () => {
    const server = await startStub(problem(404, "KNOWLEDGE_SPACE_NOT_FOUND"))
    stubs.push(server)
    const lore = createLoreClient({ baseUrl: server.url, token: "t" })
    const error: unknown = await lore.admin.spaces.remove("9f1c2d3e-0000-4000-8000-000000000000").catch((e: unknown) => e)

    expect(isLoreError(error)).toBe(true)
    expect(isLoreError(error, "KNOWLEDGE_SPACE_NOT_FOUND")).toBe(true)
    expect(isLoreError(error, "GRANT_NOT_FOUND", "PERMISSION_DENIED")).toBe(false)
    if (!isLoreError(error, "KNOWLEDGE_SPACE_NOT_FOUND")) throw new Error("expected KNOWLEDGE_SPACE_NOT_FOUND")
    expectTypeOf(error).toEqualTypeOf<LoreApiError<"KNOWLEDGE_SPACE_NOT_FOUND">>()
    expectTypeOf(error.code).toEqualTypeOf<"KNOWLEDGE_SPACE_NOT_FOUND">()
    expectTypeOf(error.problem.code).toEqualTypeOf<"KNOWLEDGE_SPACE_NOT_FOUND">()
    expect(error.code).toBe("KNOWLEDGE_SPACE_NOT_FOUND")
    expect(error.status).toBe(404)
  })

  it("narrows to the union of several codes, so a switch over them is checked", () => {
    const error: unknown = new LoreApiError({ type: "about:blank", title: "Conflict", status: 409, code: "LAST_SPACE_MANAGER", detail: "d", requestId: "r" })
    if (!isLoreError(error, "GRANT_NOT_FOUND", "LAST_SPACE_MANAGER")) throw new Error("expected a match")
    expectTypeOf(error.code).toEqualTypeOf<"GRANT_NOT_FOUND" | "LAST_SPACE_MANAGER">()
    const outcome = (() => {
      switch (error.code) {
        case "GRANT_NOT_FOUND":
          return "gone"
        case "LAST_SPACE_MANAGER":
          return "kept"
        // @ts-expect-error not one of the narrowed codes
        case "INVALID_CURSOR":
          return "impossible"
      }
    })()
    expect(outcome).toBe("kept")
  })

  it("with no code, narrows to every code the API and the SDK can give", () => {
    const error: unknown = LoreApiError.invalidArgument("x")
    if (!isLoreError(error)) throw new Error("expected a LoreApiError")
    expectTypeOf(error.code).toEqualTypeOf<LoreErrorCode>()
    // @ts-expect-error a misspelt code never matches, and says so at compile time
    expect(error.code === "KNOWLEDGE_SPACE_NOT_FUND").toBe(false)
  })

  it("refuses misspelt codes and checks a code against one operation with `satisfies`", () => {
    const error: unknown = new Error("plain")
    // @ts-expect-error no operation declares this code
    expect(isLoreError(error, "SPACE_NOT_FOUND")).toBe(false)
    expect(isLoreError(error, "INVALID_CURSOR" satisfies ErrorCode<"listSources">)).toBe(false)
    expect(isLoreError(error, "NETWORK_ERROR", "HTTP_502")).toBe(false)
    expect(isLoreError(undefined)).toBe(false)
  })

  it("recognizes a LoreApiError from another copy of the SDK (ESM and CJS loaded together)", () => {
    const foreign = Object.assign(new Error("404 SOURCE_NOT_FOUND: gone"), { name: "LoreApiError", code: "SOURCE_NOT_FOUND", status: 404 })
    expect(isLoreError(foreign, "SOURCE_NOT_FOUND")).toBe(true)
    expect(isLoreError(foreign, "INVALID_CURSOR")).toBe(false)
  })

  it("types the bodies of the one client, problem+json errors included", async () => {
    const server = await startStub(problem(400, "INVALID_CURSOR"))
    stubs.push(server)
    const lore = createLoreClient({ baseUrl: server.url, token: "t" })
    const { data, error } = await lore.raw.GET("/api/sources", { params: { query: { cursor: "nope" } } })
    expectTypeOf(data).toEqualTypeOf<SourcePage | undefined>()
    expectTypeOf<NonNullable<typeof error>["code"]>().toEqualTypeOf<ErrorCode<"listSources">>()
    expect(error?.code).toBe("INVALID_CURSOR")
  })
})
