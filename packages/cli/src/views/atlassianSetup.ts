import type { Command } from "commander"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask } from "../output/present"
import { guidedSecret } from "./connectors"

/**
 * The guided setup shared by Atlassian kinds (CONFLUENCE, JIRA): the deployment, the site's URL and the keys to crawl
 * (spaces, projects) from flags (scripts and CI) or, on a terminal, from prompts; the credential from
 * `--credential-stdin` (the API token or personal access token alone, or the credential's JSON) or a hidden prompt.
 * Never from a flag value: it would land in the shell's history and in `ps`.
 */
export const withAtlassianFlags = (command: Command) =>
  command
    .option("--deployment <deployment>", "CONFLUENCE, JIRA: CLOUD or DATA_CENTER", (value: string) => value.trim().toUpperCase())
    .option("--base-url <url>", "CONFLUENCE, JIRA: the site's URL with its context path, e.g. https://acme.atlassian.net/wiki (Confluence) or https://acme.atlassian.net (Jira)")
    .option("--email <email>", "CONFLUENCE, JIRA Cloud: the account's email (its API token comes from --credential-stdin or a prompt)")

export interface AtlassianFlags {
  readonly deployment?: string
  readonly baseUrl?: string
  readonly email?: string
  readonly credentialStdin?: boolean
}

/** What differs between the Atlassian kinds' setups. */
export interface AtlassianProduct {
  /** The sourceConfig field of the keys to crawl, and its flag. */
  readonly listField: "spaces" | "projects"
  readonly listFlag: "--spaces" | "--projects"
  readonly listLabel: string
  readonly cloudUrlLabel: string
  readonly dataCenterUrlLabel: string
  readonly tokenLabel: string
}

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const atlassianConfig = async (runtime: Runtime, flags: AtlassianFlags, list: string | undefined, base: Readonly<Record<string, unknown>>, product: AtlassianProduct) => {
  const deployment = flags.deployment ?? (base.deployment as string | undefined)
    ?? (await ask(runtime, { label: "Deployment (CLOUD or DATA_CENTER):", flag: "--deployment", defaultValue: "CLOUD" })).toUpperCase()
  if (deployment !== "CLOUD" && deployment !== "DATA_CENTER") throw usageError(`--deployment ${deployment}: pass CLOUD or DATA_CENTER`)
  const baseUrl = flags.baseUrl ?? (base.baseUrl as string | undefined)
    ?? await ask(runtime, { label: deployment === "CLOUD" ? product.cloudUrlLabel : product.dataCenterUrlLabel, flag: "--base-url" })
  const existing = base[product.listField]
  const listText = list ?? (Array.isArray(existing) ? (existing as Array<string>).join(",") : undefined)
    ?? await ask(runtime, { label: product.listLabel, flag: product.listFlag })
  const keys = listText.split(",").map((key) => key.trim()).filter((key) => key.length > 0)
  if (keys.length === 0) throw usageError(`${product.listFlag}: pass at least one key`)
  return { ...base, deployment, baseUrl, [product.listField]: keys }
}

/**
 * The credential, or undefined when none was offered and no terminal can ask (the connection is saved without it, and
 * the next step is printed). Cloud: `{email, apiToken}`; Data Center: `{token}`; a JSON object on stdin is sent as is.
 */
export const atlassianCredential = async (runtime: Runtime, flags: AtlassianFlags, deployment: string, product: AtlassianProduct): Promise<unknown> => {
  const given = await guidedSecret(runtime, flags, deployment === "CLOUD" ? product.tokenLabel : "Personal access token:")
  if (given === undefined || "json" in given) return given?.json
  if (deployment === "DATA_CENTER") return { token: given.text }
  const email = flags.email ?? await ask(runtime, { label: "The account's email:", flag: "--email" })
  return { email, apiToken: given.text }
}
