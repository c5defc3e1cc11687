import { expect } from "vitest"
import { createUser, http, type Call } from "../support/http"
import { startTestServer, type TestServer } from "../support/server"

/** Helpers for the asset tests: a server with a space, users holding relations and roles on it, sample payloads. */

export interface Person {
  readonly id: string
  readonly token: string
  readonly call: Call
}

export interface World {
  readonly server: TestServer
  readonly admin: Call
  readonly departmentId: string
  readonly spaceId: string
  /** A user with `relation` on the space (none: no grant), with platform roles and a clearance. */
  readonly person: (email: string, options?: { relation?: string | null; roles?: ReadonlyArray<string>; clearance?: string; spaceId?: string }) => Promise<Person>
}

export const startWorld = async (options: Parameters<typeof startTestServer>[0] = {}): Promise<World> => {
  const server = await startTestServer(options)
  const admin = http(server.url, server.adminToken)
  const departmentId = (await admin("POST", "/api/admin/departments", { name: "Assets" })).body.id as string
  const spaceId = (await admin("POST", "/api/admin/knowledge-spaces", { key: "assets", name: "Assets" })).body.id as string
  const person: World["person"] = async (email, options = {}) => {
    const user = await createUser(admin, server.url, { email, departmentId, clearance: options.clearance ?? "CONFIDENTIAL" })
    const relation = options.relation === undefined ? "contributor" : options.relation
    if (relation) {
      const granted = await admin("POST", `/api/admin/knowledge-spaces/${options.spaceId ?? spaceId}/grants`, { relation, kind: "USER", subjectId: user.id })
      expect(granted.status, JSON.stringify(granted.body)).toBe(204)
    }
    for (const role of options.roles ?? []) {
      const added = await admin("POST", `/api/admin/roles/${role}/members`, { userId: user.id })
      expect(added.status, JSON.stringify(added.body)).toBe(204)
    }
    return { id: user.id, token: user.token, call: user.call }
  }
  return { server, admin, departmentId, spaceId, person }
}

export const promptPayload = (overrides: Record<string, unknown> = {}) => ({
  objective: "Summarize an incident for executives",
  audience: "Incident commanders",
  systemInstruction: "You write calm, factual summaries for {{audience_name}}.",
  userTemplate: "Summarize incident {{incident_id}} of {{date}} at severity {{severity}}. Customer: {{customer_email}}. Use <b>plain</b> words & no jargon.",
  variables: [
    { name: "audience_name", type: "STRING", required: false, defaultValue: "executives", sensitive: false },
    { name: "incident_id", type: "STRING", required: true, sensitive: false, pattern: "^INC-[0-9]+$" },
    { name: "date", type: "DATE", required: true, sensitive: false },
    { name: "severity", type: "ENUM", required: true, sensitive: false, allowedValues: ["SEV1", "SEV2", "SEV3"] },
    { name: "customer_email", type: "STRING", required: false, sensitive: true }
  ],
  outputContract: { format: "markdown", maxWords: 200 },
  knowledgeRequirements: [],
  knownLimitations: "Does not know about incidents older than a year.",
  ...overrides
})

export const workInstructionPayload = () => ({
  purpose: "Rotate the on-call pager",
  audience: "SRE team",
  prerequisites: ["Pager access"],
  completionOutcome: "The new primary acknowledges the handover",
  responsibleRole: "SRE lead",
  steps: [
    { key: "announce", title: "Announce", instruction: "Post the handover in #oncall", expectedResult: "Message posted", check: "Link to the message", escalation: "Ping the SRE lead", prohibitedActions: ["Handing over by DM"] },
    { key: "switch", title: "Switch", instruction: "Change the schedule override" }
  ]
})

type Classification = "PUBLIC" | "INTERNAL" | "CONFIDENTIAL" | "RESTRICTED"

export const draftOf = (payload: unknown, overrides: { title?: string; summary?: string; classification?: Classification; schemaVersion?: string; payload?: string } = {}) => ({
  title: "Incident summary",
  summary: "Summarizes an incident",
  classification: "INTERNAL" as Classification,
  schemaVersion: "1",
  payload: JSON.stringify(payload),
  ...overrides
})

export const createAsset = async (who: Person | { call: Call }, body: Record<string, unknown>) => {
  const reply = await who.call("POST", "/api/assets", body)
  expect(reply.status, JSON.stringify(reply.body)).toBe(201)
  return reply.body as Record<string, any>
}

export const ok = async (promise: Promise<{ status: number; body: any }>, status = 200) => {
  const reply = await promise
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  return reply.body as Record<string, any>
}

export const problem = async (promise: Promise<{ status: number; body: any; contentType?: string }>, status: number, code: string) => {
  const reply = await promise
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.body.code).toBe(code)
  return reply.body as Record<string, any>
}
