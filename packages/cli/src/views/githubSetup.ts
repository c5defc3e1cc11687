import { readFileSync } from "node:fs"
import type { Command } from "commander"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask } from "../output/present"

/**
 * The guided setup of `lore connectors add --kind GITHUB`: the owner, repositories, what to index and (for GitHub
 * Enterprise Server) the REST root from flags or, on a terminal, from prompts; the credential either a GitHub App
 * installation (`--app-id`, `--installation-id`, the private key from `--private-key-file` or `--credential-stdin`)
 * or a fine-grained token (`--credential-stdin` or a hidden prompt). Never a secret in a flag value: it would land
 * in shell history.
 */
export const withGitHubFlags = (command: Command) =>
  command
    .option("--owner <login>", "GITHUB: the organization (or user) that owns the repositories")
    .option("--repositories <names>", "GITHUB: repository names under the owner, comma-separated")
    .option("--include <kinds>", "GITHUB: any of ISSUES,PULL_REQUESTS,DISCUSSIONS,MARKDOWN, comma-separated (default all)")
    .option("--github-base-url <url>", "GITHUB: GitHub Enterprise Server's REST root, e.g. https://github.example.com/api/v3 (omit for github.com)")
    .option("--app-id <id>", "GITHUB: the GitHub App's id (App settings > About)")
    .option("--installation-id <id>", "GITHUB: the installation's id (the number at the end of the installation's settings URL)")
    .option("--private-key-file <path>", "GITHUB: the GitHub App's private key (.pem)")

export interface GitHubFlags {
  readonly owner?: string
  readonly repositories?: string
  readonly include?: string
  readonly githubBaseUrl?: string
  readonly appId?: string
  readonly installationId?: string
  readonly privateKeyFile?: string
  readonly credentialStdin?: boolean
}

const ALL = "ISSUES,PULL_REQUESTS,DISCUSSIONS,MARKDOWN"
const list = (text: string) => text.split(",").map((item) => item.trim()).filter((item) => item.length > 0)

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const gitHubConfig = async (runtime: Runtime, flags: GitHubFlags, base: Readonly<Record<string, unknown>>) => {
  const owner = flags.owner ?? (base.owner as string | undefined)
    ?? await ask(runtime, { label: "Organization (or user) that owns the repositories:", flag: "--owner" })
  const repositories = flags.repositories ?? (Array.isArray(base.repositories) ? (base.repositories as Array<string>).join(",") : undefined)
    ?? await ask(runtime, { label: "Repository names, comma-separated:", flag: "--repositories" })
  const include = flags.include ?? (Array.isArray(base.include) ? (base.include as Array<string>).join(",") : undefined)
    ?? (runtime.canPrompt ? await ask(runtime, { label: `What to index (${ALL}):`, flag: "--include", defaultValue: ALL }) : ALL)
  const baseUrl = flags.githubBaseUrl ?? (base.baseUrl as string | undefined)
  return {
    ...base,
    owner: owner.trim(),
    // `acme/core` is accepted for `core` when acme is the owner.
    repositories: list(repositories).map((name) => (name.toLowerCase().startsWith(`${owner.trim().toLowerCase()}/`) ? name.slice(owner.trim().length + 1) : name)),
    include: list(include).map((item) => item.toUpperCase()),
    ...(baseUrl ? { baseUrl: baseUrl.trim() } : {})
  }
}

const numberOf = (text: string, flag: string) => {
  if (!/^\d{1,15}$/.test(text.trim())) throw usageError(`${flag} must be a number`)
  return Number(text.trim())
}

const readKeyFile = (path: string) => {
  try {
    return readFileSync(path.trim(), "utf8")
  } catch {
    throw usageError(`cannot read the private key file ${JSON.stringify(path.trim().slice(0, 200))}`)
  }
}

/**
 * The credential, or undefined when none was offered and no terminal can ask (the connection is saved without it and
 * the next step is printed). stdin holds a JSON credential, the App's private key (PEM) or a token.
 */
export const gitHubCredential = async (runtime: Runtime, flags: GitHubFlags): Promise<unknown> => {
  // The App's ids are asked before its key, so a script missing one learns of it first.
  const app = async (privateKey: () => Promise<string>) => {
    const appId = numberOf(flags.appId ?? await ask(runtime, { label: "GitHub App id (App settings > About > App ID):", flag: "--app-id" }), "--app-id")
    const installationId = numberOf(flags.installationId ?? await ask(runtime, { label: "Installation id (the number at the end of the installation's settings URL):", flag: "--installation-id" }), "--installation-id")
    return { appId, installationId, privateKeyPem: await privateKey() }
  }
  const keyFromPrompt = async () => readKeyFile(await ask(runtime, { label: "Path of the GitHub App's private key (.pem):", flag: "--private-key-file" }))
  if (flags.credentialStdin) {
    if (process.stdin.isTTY) throw usageError("--credential-stdin reads the credential from stdin, but stdin is a terminal; pipe it in")
    const text = readFileSync(0, "utf8").trim()
    if (text === "") throw usageError("--credential-stdin: stdin was empty")
    if (text.startsWith("{")) {
      try {
        return JSON.parse(text) as unknown
      } catch {
        throw usageError("--credential-stdin: stdin starts with { but is not JSON")
      }
    }
    if (text.includes("PRIVATE KEY")) return app(async () => `${text}\n`)
    if (flags.appId || flags.installationId) throw usageError("--credential-stdin: with --app-id, stdin must hold the GitHub App's private key (PEM)")
    return { token: text }
  }
  if (flags.privateKeyFile) return app(async () => readKeyFile(flags.privateKeyFile!))
  if (flags.appId || flags.installationId) return app(keyFromPrompt)
  if (!runtime.canPrompt) return undefined
  const how = await ask(runtime, { label: "Authenticate as a GitHub App installation (app) or with a fine-grained token (token)?", flag: "--app-id", defaultValue: "app" })
  if (how.toLowerCase().startsWith("t")) return { token: await ask(runtime, { label: "Fine-grained personal access token:", flag: "--credential-stdin", secret: true }) }
  return app(keyFromPrompt)
}
