import { readFileSync } from "node:fs"
import type { ConnectorActivity, ConnectorConfig, LoreClient, SourcePrincipal } from "@lore/sdk"
import type { Command } from "commander"
import type { Runtime } from "../context"
import { CliError, ExitCode, usageError } from "../errors"
import { ask } from "../output/present"
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

/**
 * A guided setup's secret: from `--credential-stdin`, else LORE_CONNECTOR_CREDENTIAL, else a hidden prompt on a
 * terminal; undefined when none was offered and no terminal can ask (the connection is saved without it and the next
 * step is printed). A JSON object is answered parsed (`json`), anything else as the text.
 */
export const guidedSecret = async (runtime: Runtime, flags: { readonly credentialStdin?: boolean }, label: string): Promise<{ readonly text: string } | { readonly json: unknown } | undefined> => {
  let secret: string
  if (flags.credentialStdin) {
    if (process.stdin.isTTY) throw usageError("--credential-stdin reads the credential from stdin, but stdin is a terminal; pipe it in")
    secret = readFileSync(0, "utf8").trim()
    if (secret === "") throw usageError("--credential-stdin: stdin was empty")
  } else if (runtime.env.LORE_CONNECTOR_CREDENTIAL?.trim()) {
    secret = runtime.env.LORE_CONNECTOR_CREDENTIAL.trim()
  } else if (runtime.canPrompt) {
    secret = await ask(runtime, { label, flag: "--credential-stdin", secret: true })
  } else return undefined
  if (!secret.startsWith("{")) return { text: secret }
  try {
    return { json: JSON.parse(secret) as unknown }
  } catch {
    throw usageError("--credential-stdin: the credential starts with { but is not JSON")
  }
}

/** `--config`, `--set` and `--every`: a kind's sourceConfig and the crawl schedule, for add and edit. */
export const withSourceConfig = (command: Command) =>
  command
    .option("--config <json>", "sourceConfig settings as a JSON object, e.g. '{\"baseUrl\":\"https://docs.example.com/\"}'")
    .option("--set <key=value>", "one sourceConfig setting (repeatable); the value is read as JSON when it parses (true, 42, [\"a\"]), else as text",
      (value: string, previous: Array<string> = []) => [...previous, value])
    .option("--every <interval>", "crawl on a schedule, this long after the last crawl ended: seconds, or 30m, 6h, 1d (0 turns it off)")
    .option("--permissions-every <interval>", "sync permissions (ACLs and groups, no content) this often while crawling is enabled: 5m (the default), 1h; 0 turns it off; at least 1m")
    .option("--permission-max-age <interval>", "past this long without a successful permission sync the connection's documents admit nobody (e.g. 1d; 0 for never)")

export interface SourceConfigFlags {
  readonly config?: string
  readonly set?: Array<string>
  readonly every?: string
  readonly permissionsEvery?: string
  readonly permissionMaxAge?: string
  readonly description?: string
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400 }

/** 21600 -> "6h"; the largest unit that divides it. */
const describeInterval = (seconds: number) => {
  for (const unit of ["d", "h", "m"] as const) if (seconds % UNITS[unit]! === 0) return `${seconds / UNITS[unit]!}${unit}`
  return `${seconds}s`
}

/** Seconds from `--every` (or another duration flag; exit 2 when it is not a duration). */
export const intervalSeconds = (every: string, flag = "--every"): number => {
  const match = /^(\d+)\s*([smhd]?)$/i.exec(every.trim())
  if (!match) throw usageError(`${flag} ${every}: pass seconds or a duration like 30m, 6h, 1d`)
  return Number(match[1]) * UNITS[(match[2] || "s").toLowerCase()]!
}

/** The permission-sync settings from `--permissions-every` and `--permission-max-age` (absent: unchanged). */
export const permissionSettings = (flags: SourceConfigFlags) => {
  const every = flags.permissionsEvery === undefined ? undefined : intervalSeconds(flags.permissionsEvery, "--permissions-every")
  if (every !== undefined && every !== 0 && every < 60) throw usageError(`--permissions-every ${flags.permissionsEvery}: 0 (off) or at least 1m`)
  const maxAge = flags.permissionMaxAge === undefined ? undefined : intervalSeconds(flags.permissionMaxAge, "--permission-max-age")
  if (maxAge !== undefined && maxAge !== 0 && maxAge < 60) throw usageError(`--permission-max-age ${flags.permissionMaxAge}: 0 (never) or at least 1m`)
  return {
    ...(every === undefined ? {} : { permissionSyncIntervalSeconds: every }),
    ...(maxAge === undefined ? {} : { permissionMaxAgeSeconds: maxAge === 0 ? null : maxAge })
  }
}

/** The sourceConfig `base` with `--config`'s settings, then `--set` and `--description`, applied over it; exit 2 on bad JSON. */
export const sourceConfigFrom = (flags: SourceConfigFlags, base: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  let config: Record<string, unknown> = { ...base }
  if (flags.config !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(flags.config)
    } catch {
      throw usageError("--config must be a JSON object, e.g. '{\"baseUrl\":\"https://docs.example.com/\"}'")
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw usageError("--config must be a JSON object")
    config = { ...config, ...(parsed as Record<string, unknown>) }
  }
  for (const pair of flags.set ?? []) {
    const at = pair.indexOf("=")
    if (at <= 0) throw usageError(`--set ${pair}: pass key=value`)
    const raw = pair.slice(at + 1)
    let value: unknown = raw
    try {
      value = JSON.parse(raw)
    } catch {
      value = raw
    }
    config[pair.slice(0, at)] = value
  }
  if (flags.description !== undefined) config.description = flags.description
  return config
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

/** `spaceKeys`: knowledge space keys by id, so the table names spaces as people type them (ids when unknown). */
export const connectorsView = (configs: ReadonlyArray<ConnectorConfig>, spaceKeys: ReadonlyMap<string, string> = new Map()): View => [
  {
    kind: "table",
    columns: [{ header: "kind" }, { header: "key" }, { header: "trust" }, { header: "credential" }, { header: "crawl" }, { header: "space" }],
    rows: configs.map((c) => [
      c.sourceSystem, styled(c.sourceConnectionKey, "accent"), trustCell(c.identityTrust), c.credentialSet ? "set" : styled("missing", "warning"),
      c.crawlEnabled ? "enabled" : "off", spaceKeys.get(c.knowledgeSpaceId) ?? styled(c.knowledgeSpaceId, "muted")
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
      ["Crawl", c.crawlEnabled && c.contentCrawlIntervalSeconds > 0 ? `every ${describeInterval(c.contentCrawlIntervalSeconds)} after the last crawl` : "on demand"],
      ["Permission sync", c.crawlEnabled && c.permissionSyncIntervalSeconds > 0 ? `every ${describeInterval(c.permissionSyncIntervalSeconds)} (kinds that have one)` : "on demand"],
      ...(c.permissionMaxAgeSeconds === null ? [] : [["Permissions expire", `after ${describeInterval(c.permissionMaxAgeSeconds)} without a successful sync`] as [string, string]]),
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

