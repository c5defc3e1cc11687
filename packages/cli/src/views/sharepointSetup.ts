import { readFileSync } from "node:fs"
import type { Command } from "commander"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask } from "../output/present"

/**
 * The guided setup of `lore connectors add --kind SHAREPOINT`: the tenant, the app registration, the SharePoint host,
 * the sites and the OneDrive users from flags (scripts and CI) or, on a terminal, from prompts; the credential (the
 * app's certificate and private key) from `--credential-stdin` as a JSON object `{certificatePem, privateKeyPem}`,
 * or on a terminal from the paths of the two PEM files. Never from a flag value (it would land in shell history).
 */
export const withSharePointFlags = (command: Command) =>
  command
    .option("--tenant-id <id>", "SHAREPOINT: the Entra tenant id (or its domain, acme.onmicrosoft.com)")
    .option("--client-id <id>", "SHAREPOINT: the app registration's Application (client) id")
    .option("--sharepoint-host <url>", "SHAREPOINT: the tenant's SharePoint address, e.g. https://acme.sharepoint.com")
    .option("--sites <sites>", "SHAREPOINT: site URLs or ids to crawl, comma-separated ('all' for every site the app can find)")
    .option("--users <emails>", "SHAREPOINT: users whose OneDrive is crawled; GOOGLE_DRIVE: users whose My Drive is crawled (comma-separated)")

export interface SharePointFlags {
  readonly tenantId?: string
  readonly clientId?: string
  readonly sharepointHost?: string
  readonly sites?: string
  readonly users?: string
  readonly credentialStdin?: boolean
}

/**
 * A JSON object read from stdin (0) or a file, for kinds whose credential is one: `refused` when it is not one, never
 * repeating what was read (it is a secret).
 */
export const jsonObjectFrom = (source: 0 | string, refused: string): Record<string, unknown> => {
  if (source === 0 && process.stdin.isTTY) throw usageError("--credential-stdin reads the credential from stdin, but stdin is a terminal; pipe it in")
  let text: string
  try {
    text = readFileSync(source, "utf8").trim()
  } catch {
    throw usageError(`cannot read ${source === 0 ? "stdin" : `the file ${JSON.stringify(source.slice(0, 200))}`}`)
  }
  try {
    const parsed = JSON.parse(text) as unknown
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {
    // Answered below, without repeating what was read.
  }
  throw usageError(refused)
}

export const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item.length > 0)

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const sharePointConfig = async (runtime: Runtime, flags: SharePointFlags, base: Readonly<Record<string, unknown>>) => {
  const tenantId = flags.tenantId ?? (base.tenantId as string | undefined)
    ?? await ask(runtime, { label: "Directory (tenant) id (Entra admin center > Overview):", flag: "--tenant-id" })
  const clientId = flags.clientId ?? (base.clientId as string | undefined)
    ?? await ask(runtime, { label: "Application (client) id of the app registration:", flag: "--client-id" })
  const sharepointHost = flags.sharepointHost ?? (base.sharepointHost as string | undefined)
    ?? await ask(runtime, { label: "SharePoint address (https://<tenant>.sharepoint.com):", flag: "--sharepoint-host" })
  const sitesText = flags.sites ?? (Array.isArray(base.sites) ? (base.sites as Array<string>).join(",") : undefined)
    ?? await ask(runtime, { label: "Site URLs, comma-separated ('all' for every site the app can find):", flag: "--sites", defaultValue: "all" })
  const usersText = flags.users ?? (Array.isArray(base.users) ? (base.users as Array<string>).join(",") : undefined)
    ?? (runtime.canPrompt ? await ask(runtime, { label: "Users whose OneDrive is crawled, comma-separated ('none' for none):", flag: "--users", defaultValue: "none" }) : "")
  const sites = sitesText.trim().toLowerCase() === "all" ? [] : list(sitesText)
  const users = usersText.trim().toLowerCase() === "none" ? [] : list(usersText)
  const { sites: _sites, users: _users, ...rest } = base
  return { ...rest, tenantId: tenantId.trim(), clientId: clientId.trim(), sharepointHost: sharepointHost.trim(), ...(sites.length > 0 ? { sites } : {}), ...(users.length > 0 ? { users } : {}) }
}

/**
 * The credential, or undefined when none was offered and no terminal can ask (the connection is saved without it and
 * the next step is printed): `{certificatePem, privateKeyPem}` from stdin as JSON, or read from the files named at
 * the prompts.
 */
export const sharePointCredential = async (runtime: Runtime, flags: SharePointFlags): Promise<unknown> => {
  if (flags.credentialStdin) return jsonObjectFrom(0, "--credential-stdin: SHAREPOINT reads a JSON object {\"certificatePem\": ..., \"privateKeyPem\": ...} from stdin")
  if (!runtime.canPrompt) return undefined
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file.trim(), "utf8")
    } catch {
      throw usageError(`cannot read the ${what} file ${JSON.stringify(file.trim().slice(0, 200))}`)
    }
  }
  const certificate = await ask(runtime, { label: "Path of the certificate (PEM) uploaded to the app registration:", flag: "--credential-stdin" })
  const key = await ask(runtime, { label: "Path of its private key (PEM):", flag: "--credential-stdin" })
  return { certificatePem: read(certificate, "certificate"), privateKeyPem: read(key, "private key") }
}
