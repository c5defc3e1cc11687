import { expect } from "vitest"
import type { Problem } from "@lore/sdk"

/**
 * Asserts a raw response is Lore's problem+json for `status`/`code`, and that its requestId is the
 * X-Request-Id header of the same response. Returns the body for further checks.
 */
export const expectProblem = async (response: Response, status: number, code: string): Promise<Problem> => {
  expect(response.status).toBe(status)
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/)
  const body = (await response.json()) as Problem
  expect(body).toMatchObject({ status, code, title: expect.any(String), detail: expect.any(String), type: expect.any(String) })
  expect(body.code).toMatch(/^[A-Z][A-Z0-9_]*$/)
  expect(body.requestId).toBeTruthy()
  expect(body.requestId).toBe(response.headers.get("x-request-id"))
  return body
}
