import { readFileSync } from "node:fs"
import type { ConnectorActivity, ConnectorConfig, LoreClient, SourcePrincipal } from "@lore/sdk"
import type { Command } from "commander"
import type { Runtime } from "../context"
import { CliError, ExitCode, usageError } from "../errors"
import { formatTime, styled, type View } from "../output/view"

// What `lore connectors ...`, `lore principals ...`, `lore connections ...` and `lore push` share.

/** `--kind <kind>` (default PUSH), upper-cased as the server spells source systems. */
export const withKind = (command: Command) => command.option("--kind <kind>", "the connector kind (sourceSystem), e.g. PUSH", (value: string) => value.trim().toUpperCase(), "PUSH")
export const kindOf = (command: Command) => command.opts<{ kind: string }>().kind

/**
 * A connection's credential: from stdin with `--credential-stdin`, else LORE_CONNECTOR_CREDENTIAL. Never a
 * flag value (it would land in the shell's history and in `ps`).
 */
export const withCredentialInput = (command: Command) =>
  command.option("--credential-stdin", "read the connection's credential from stdin (else LORE_CONNECTOR_CREDENTIAL)")

export const readCredential = (runtime: Runtime, command: Command): string => {
  const { credentialStdin } = command.opts<{ credentialStdin?: boolean }>()
  if (credentialStdin) {
    if (process.stdin.isTTY) throw usageError("--credential-stdin reads the credential from stdin, but stdin is a terminal; pipe it in")
    const value = readFileSync(0, "utf8").trim()
    if (value === "") throw usageError("--credential-stdin: stdin was empty")
    return value
  }
  const fromEnv = runtime.env.LORE_CONNECTOR_CREDENTIAL?.trim()
  if (fromEnv) return fromEnv
  throw usageError("missing credential: pipe it with --credential-stdin or set LORE_CONNECTOR_CREDENTIAL")
}

/** `--config <file>`: a connection's settings (its kind's sourceConfig) as a JSON object, from a file or stdin (`-`). */
export const withSourceConfig = (command: Command) =>
  command.option("--config <file>", "the connection's settings (the kind's sourceConfig) as a JSON file; - reads stdin")

export const readSourceConfig = (path: string): Record<string, unknown> => {
  let text: string
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8")
  } catch {
    throw usageError(`--config: cannot read ${path === "-" ? "stdin" : path}`)
  }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    throw usageError(`--config: ${path === "-" ? "stdin" : path} is not JSON`)
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw usageError("--config: expected a JSON object (the connection's sourceConfig)")
  return parsed as Record<string, unknown>
}

/** A connection's config by kind and key; exit 5 when there is none. */
export const findConnector = async (lore: LoreClient, kind: string, key: string): Promise<ConnectorConfig> => {
  const configs = await lore.admin.connectors.list(kind)
  const found = configs.find((c) => c.sourceConnectionKey === key)
  if (!found) {
    throw new CliError(ExitCode.notFound, "CONNECTION_NOT_FOUND", `no ${kind} connection '${key}' (connections: ${configs.map((c) => c.sourceConnectionKey).join(", ") || "none"})`)
  }
  return found
}

/** A source principal by id or native id (e.g. an email), optionally narrowed to one connection; exit 5 / 2. */
export const findPrincipal = async (lore: LoreClient, ref: string, connection?: string): Promise<SourcePrincipal> => {
  const principals = (await lore.admin.sourceIdentity.principals()).filter((p) => !connection || p.sourceConnectionKey === connection)
  const byId = principals.find((p) => p.id === ref)
  if (byId) return byId
  const matches = principals.filter((p) => p.nativePrincipalId === ref || p.observedEmail?.toLowerCase() === ref.toLowerCase())
  if (matches.length === 0) throw new CliError(ExitCode.notFound, "SOURCE_PRINCIPAL_NOT_FOUND", `no source principal '${ref}'${connection ? ` on connection ${connection}` : ""}`)
  if (matches.length > 1) throw usageError(`'${ref}' names principals on several connections (${matches.map((p) => p.sourceConnectionKey).join(", ")}); pass --connection or the principal id`)
  return matches[0]!
}

const trustCell = (trust: string) => styled(trust.toLowerCase(), trust === "TRUSTED" ? "success" : "warning")

export const connectorsView = (configs: ReadonlyArray<ConnectorConfig>): View => [
  {
    kind: "table",
    columns: [{ header: "kind" }, { header: "key" }, { header: "trust" }, { header: "credential" }, { header: "crawl" }, { header: "space" }],
    rows: configs.map((c) => [
      c.sourceSystem, styled(c.sourceConnectionKey, "accent"), trustCell(c.identityTrust), c.credentialSet ? "set" : styled("missing", "warning"),
      c.crawlEnabled ? "enabled" : "off", styled(c.knowledgeSpaceId, "muted")
    ]),
    empty: "No connections. Add one with: lore connectors add --kind PUSH --key <key> --space <space>"
  }
]

export const connectorView = (c: ConnectorConfig, title: string): View => [
  { kind: "message", tone: "success", text: title },
  {
    kind: "fields",
    fields: [
      ["Kind", c.sourceSystem],
      ["Key", styled(c.sourceConnectionKey, "accent")],
      ["Identity trust", trustCell(c.identityTrust)],
      ["Credential", c.credentialSet ? `set (write-only)${c.credentialSetAt ? `, ${formatTime(c.credentialSetAt)}` : ""}` : styled("missing", "warning")],
      ["Space", c.knowledgeSpaceId]
    ]
  }
]

export const activityView = (a: ConnectorActivity): View => [
  {
    kind: "fields",
    fields: [
      ["Connection", `${a.sourceSystem} ${a.sourceConnectionKey}`],
      ["Objects", `${a.objectsActive} active, ${a.objectsArchived} archived (${a.objectsTotal} in all)`],
      ["Last object", a.lastObjectAt ? formatTime(a.lastObjectAt) : "never"],
      ["Last crawl", a.lastCrawlAt ? formatTime(a.lastCrawlAt) : "never"]
    ]
  },
  {
    kind: "table",
    columns: [{ header: "when" }, { header: "outcome" }, { header: "new", align: "right" }, { header: "rotated", align: "right" }, { header: "rematerialized", align: "right" }, { header: "retired", align: "right" }, { header: "failed", align: "right" }, { header: "error" }],
    rows: a.recentAttempts.map((t) => [
      formatTime(t.attemptedAt), t.outcome, String(t.objectsMaterialized), String(t.objectsRotated), String(t.objectsRematerialized),
      String(t.objectsRetired), String(t.objectsFailed), t.errorCode ?? ""
    ]),
    empty: "No crawl attempts yet."
  }
]

export const principalsView = (principals: ReadonlyArray<SourcePrincipal>): View => [
  {
    kind: "table",
    columns: [{ header: "connection" }, { header: "kind" }, { header: "native id" }, { header: "email" }, { header: "mapped to" }, { header: "id" }],
    rows: principals.map((p) => [
      `${p.sourceSystem}/${p.sourceConnectionKey}`, p.kind === "SOURCE_USER" ? "user" : "group", styled(p.nativePrincipalId, "accent"), p.observedEmail ?? "",
      p.mapping ? `${p.mapping.appUserEmail} (${p.mapping.method.toLowerCase()}${p.mapping.status === "ACTIVE" ? "" : `, ${p.mapping.status.toLowerCase()}`})` : styled("unmapped", "muted"),
      styled(p.id, "muted")
    ]),
    empty: "No source principals yet: they appear when a connection pushes or crawls ACLs."
  }
]

export const principalView = (p: SourcePrincipal, title: string): View => [
  { kind: "message", tone: "success", text: title },
  ...principalsView([p])
]

