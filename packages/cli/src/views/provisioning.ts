import type { LoreClient, ProvisioningConnection, ProvisioningCredential } from "@lore/sdk"
import { CliError, ExitCode } from "../errors"
import { formatTime, styled, type View } from "../output/view"

// What `lore admin provisioning ...` shares: finding a connection by alias or id, and the views.

type IssuedCredential = Awaited<ReturnType<LoreClient["admin"]["provisioning"]["issue"]>>

/** A connection named by its alias or id; exit 5 when there is none. */
export const findConnection = async (lore: LoreClient, ref: string): Promise<ProvisioningConnection> => {
  const connections = await lore.admin.provisioning.connections()
  const wanted = ref.trim().toLowerCase()
  const found = connections.find((c) => c.id === wanted || c.alias.toLowerCase() === wanted)
  if (!found) {
    throw new CliError(ExitCode.notFound, "PROVISIONING_CONNECTION_NOT_FOUND", `no provisioning connection '${ref}' (connections: ${connections.map((c) => c.alias).join(", ") || "none"})`)
  }
  return found
}

const stateCell = (state: string) => styled(state.toLowerCase(), state === "ENABLED" ? "success" : state === "PAUSED" ? "warning" : "muted")

export const connectionsView = (connections: ReadonlyArray<ProvisioningConnection>): View => [
  {
    kind: "table",
    columns: [{ header: "alias" }, { header: "provider" }, { header: "state" }, { header: "status" }, { header: "users" }, { header: "groups" }, { header: "version", align: "right", fit: "optional" }, { header: "id" }],
    rows: connections.map((c) => [
      styled(c.alias, "accent"), c.providerProfile, stateCell(c.operationalState), c.configurationStatus,
      c.usersEnabled ? "yes" : "no", c.groupsEnabled ? "yes" : "no", String(c.version), styled(c.id, "muted")
    ]),
    empty: "No provisioning connections. Add one with: lore admin provisioning add <alias> --provider okta"
  }
]

export const connectionView = (c: ProvisioningConnection, title: string): View => [
  { kind: "message", tone: "success", text: title },
  {
    kind: "fields",
    fields: [
      ["Alias", styled(c.alias, "accent")],
      ["Provider", c.providerProfile],
      ["State", stateCell(c.operationalState)],
      ["Status", c.configurationStatus],
      ["Users / groups", `${c.usersEnabled ? "yes" : "no"} / ${c.groupsEnabled ? "yes" : "no"}`],
      ["Links existing users", c.linkExistingUsers ? "yes (never administrators)" : "no"],
      ["SCIM base URL", `<server>${c.scimBaseUrl}`],
      ["Version", String(c.version)],
      ["Id", styled(c.id, "muted")]
    ]
  }
]

const credentialState = (c: ProvisioningCredential) => {
  const now = Date.now()
  if (c.revokedAt) return styled("revoked", "error")
  if (Date.parse(c.expiresAt) <= now) return styled("expired", "muted")
  if (c.overlapEndsAt) return Date.parse(c.overlapEndsAt) <= now ? styled("replaced", "muted") : styled("rotating", "warning")
  return styled("active", "success")
}

export const credentialsView = (credentials: ReadonlyArray<ProvisioningCredential>): View => [
  {
    kind: "table",
    columns: [{ header: "public id" }, { header: "state" }, { header: "scopes" }, { header: "expires" }, { header: "overlap ends", fit: "optional" }, { header: "last used", fit: "optional" }, { header: "id" }],
    rows: credentials.map((c) => [
      styled(c.publicTokenId, "accent"), credentialState(c),
      [c.usersScope ? "users" : "", c.groupsScope ? "groups" : ""].filter(Boolean).join(","),
      formatTime(c.expiresAt), formatTime(c.overlapEndsAt), formatTime(c.lastUsedAt, "never"), styled(c.id, "muted")
    ]),
    empty: "No credentials. Issue one with: lore admin provisioning issue <connection>"
  }
]

export const issuedView = (issued: IssuedCredential, title: string): View => [
  { kind: "message", tone: "success", text: title },
  { kind: "secret", label: "SCIM token (shown only now; give it to the identity provider)", value: issued.token, note: "The identity provider sends it as Authorization: Bearer <token> to <server>/scim/v2" },
  {
    kind: "fields",
    fields: [
      ["Credential", styled(issued.credentialId, "muted")],
      ["Public id", issued.publicTokenId],
      ["Scopes", [issued.usersScope ? "users" : "", issued.groupsScope ? "groups" : ""].filter(Boolean).join(", ")],
      ["Expires", formatTime(issued.expiresAt)],
      ...(issued.replacesCredentialId ? [["Replaces", `${issued.replacesCredentialId} (works until ${formatTime(issued.overlapEndsAt)})`] as const] : [])
    ]
  }
]
