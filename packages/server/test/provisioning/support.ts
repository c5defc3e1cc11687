import { expect } from "vitest"
import type { Call } from "../support/http"

export const PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
export const CORE_USER = "urn:ietf:params:scim:schemas:core:2.0:User"
export const CORE_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
export const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
export const ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error"

export interface ScimReply {
  readonly status: number
  readonly contentType: string
  readonly body: any
}

/** A SCIM client as an identity provider is: application/scim+json bodies, a provisioning bearer token. */
export const scimClient = (baseUrl: string, token: string) =>
  async (method: string, path: string, body?: unknown): Promise<ScimReply> => {
    const response = await fetch(`${baseUrl}/scim/v2${path}`, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        accept: "application/scim+json",
        ...(body !== undefined ? { "content-type": "application/scim+json" } : {})
      },
      body: body !== undefined ? JSON.stringify(body) : undefined
    })
    const text = await response.text()
    return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: text ? JSON.parse(text) : undefined }
  }
export type ScimCall = ReturnType<typeof scimClient>

/** Creates a connection, enables it, and issues a credential; answers the connection and the token. */
export const enabledConnection = async (
  admin: Call,
  input: { alias: string; providerProfile?: string; usersScope?: boolean; groupsScope?: boolean; defaultClearance?: string; linkExistingUsers?: boolean }
) => {
  const created = await admin("POST", "/api/admin/provisioning/connections", {
    alias: input.alias, providerProfile: input.providerProfile ?? "OKTA", usersEnabled: true, groupsEnabled: true,
    ...(input.defaultClearance ? { defaultClearance: input.defaultClearance } : {}),
    ...(input.linkExistingUsers !== undefined ? { linkExistingUsers: input.linkExistingUsers } : {})
  })
  expect(created.status, JSON.stringify(created.body)).toBe(201)
  const enabled = await admin("PATCH", `/api/admin/provisioning/connections/${created.body.id}/state`, { operationalState: "ENABLED", version: created.body.version })
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200)
  const issued = await admin("POST", `/api/admin/provisioning/connections/${created.body.id}/credentials`, {
    usersScope: input.usersScope ?? true, groupsScope: input.groupsScope ?? true
  })
  expect(issued.status, JSON.stringify(issued.body)).toBe(201)
  return { connection: enabled.body, token: issued.body.token as string, credentialId: issued.body.credentialId as string }
}

export const expectScimError = (reply: ScimReply, status: number, scimType?: string) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(status)
  expect(reply.contentType).toContain("application/scim+json")
  expect(reply.body.schemas).toEqual([ERROR_SCHEMA])
  expect(reply.body.status).toBe(String(status))
  if (scimType) expect(reply.body.scimType).toBe(scimType)
}

/** Okta's sample user body (its SCIM 2.0 test suite creates users like this). */
export const oktaUser = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [CORE_USER],
  userName,
  name: { givenName: "Test", familyName: "User" },
  emails: [{ primary: true, value: userName, type: "work" }],
  displayName: "Test User",
  locale: "en-US",
  externalId: `okta-${userName}`,
  groups: [],
  password: "1mP0ssible!",
  active: true,
  ...extra
})
