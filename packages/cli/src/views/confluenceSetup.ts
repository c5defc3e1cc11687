import type { Command } from "commander"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask } from "../output/present"
import { guidedSecret } from "./connectors"

/**
 * The guided setup of `lore connectors add --kind CONFLUENCE`: the deployment, the site's URL and the spaces from
 * flags (scripts and CI) or, on a terminal, from prompts; the credential from `--credential-stdin` (the API token
 * or personal access token alone, or the credential's JSON) or a hidden prompt. Never from a flag value: it would
 * land in the shell's history and in `ps`.
 */
export const withConfluenceFlags = (command: Command) =>
  command
    .option("--deployment <deployment>", "CONFLUENCE: CLOUD or DATA_CENTER", (value: string) => value.trim().toUpperCase())
    .option("--base-url <url>", "CONFLUENCE: the site's URL with its context path, e.g. https://acme.atlassian.net/wiki")
    .option("--spaces <keys>", "CONFLUENCE: the space keys to crawl, comma-separated")
    .option("--email <email>", "CONFLUENCE Cloud: the account's email (its API token comes from --credential-stdin or a prompt)")

export interface ConfluenceFlags {
  readonly deployment?: string
  readonly baseUrl?: string
  readonly spaces?: string
  readonly email?: string
  readonly credentialStdin?: boolean
}

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const confluenceConfig = async (runtime: Runtime, flags: ConfluenceFlags, base: Readonly<Record<string, unknown>>) => {
  const deployment = flags.deployment ?? (base.deployment as string | undefined)
    ?? (await ask(runtime, { label: "Deployment (CLOUD or DATA_CENTER):", flag: "--deployment", defaultValue: "CLOUD" })).toUpperCase()
  if (deployment !== "CLOUD" && deployment !== "DATA_CENTER") throw usageError(`--deployment ${deployment}: pass CLOUD or DATA_CENTER`)
  const baseUrl = flags.baseUrl ?? (base.baseUrl as string | undefined)
    ?? await ask(runtime, { label: deployment === "CLOUD" ? "Site URL (https://<site>.atlassian.net/wiki):" : "Base URL (with its context path, e.g. https://wiki.example.com):", flag: "--base-url" })
  const spacesText = flags.spaces ?? (Array.isArray(base.spaces) ? (base.spaces as Array<string>).join(",") : undefined)
    ?? await ask(runtime, { label: "Space keys, comma-separated:", flag: "--spaces" })
  const spaces = spacesText.split(",").map((key) => key.trim()).filter((key) => key.length > 0)
  if (spaces.length === 0) throw usageError("--spaces: pass at least one space key")
  return { ...base, deployment, baseUrl, spaces }
}

/**
 * The credential, or undefined when none was offered and no terminal can ask (the connection is saved without it, and
 * the next step is printed). Cloud: `{email, apiToken}`; Data Center: `{token}`; a JSON object on stdin is sent as is.
 */
export const confluenceCredential = async (runtime: Runtime, flags: ConfluenceFlags, deployment: string): Promise<unknown> => {
  const given = await guidedSecret(runtime, flags, deployment === "CLOUD" ? "API token (id.atlassian.com > Security > API tokens):" : "Personal access token:")
  if (given === undefined || "json" in given) return given?.json
  const secret = given.text
  if (deployment === "DATA_CENTER") return { token: secret }
  const email = flags.email ?? await ask(runtime, { label: "The account's email:", flag: "--email" })
  return { email, apiToken: secret }
}
