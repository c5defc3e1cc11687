import { createPrivateKey } from "node:crypto"
import type { LoreSettings } from "../../Config"
import type { FieldError } from "../../domain/Errors"
import { checkOutboundUrl, outboundPolicy } from "../../outbound/Guard"

export const GITHUB_INCLUDES = ["ISSUES", "PULL_REQUESTS", "DISCUSSIONS", "MARKDOWN"] as const
export type GitHubInclude = (typeof GITHUB_INCLUDES)[number]

export interface GitHubConfig {
  /** The organization (or user) that owns the repositories. */
  readonly owner: string
  /** Repository names under `owner`. */
  readonly repositories: ReadonlyArray<string>
  readonly include: ReadonlySet<GitHubInclude>
  /** GitHub Enterprise Server's REST root (`https://github.example.com/api/v3`), or null for github.com. */
  readonly baseUrl: string | null
}

/** Secrets only: a GitHub App installation (the app's id, the installation's id, the app's private key) or a fine-grained token. */
export type GitHubCredential =
  | { readonly kind: "APP"; readonly appId: number; readonly installationId: number; readonly privateKeyPem: string }
  | { readonly kind: "TOKEN"; readonly token: string }

const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/
const REPOSITORY = /^[A-Za-z0-9._-]{1,100}$/
const MAX_REPOSITORIES = 500
const KEYS = ["owner", "repositories", "include", "baseUrl"]

export const readGitHubConfig = (
  sourceConfig: Readonly<Record<string, unknown>>,
  settings: LoreSettings
): { readonly ok: true; readonly config: GitHubConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { owner, repositories, include, baseUrl } = sourceConfig
  if (typeof owner !== "string" || !LOGIN.test(owner)) errors.push({ path: "sourceConfig.owner", message: "must be the GitHub organization (or user) login that owns the repositories" })
  if (!Array.isArray(repositories) || repositories.length === 0 || repositories.length > MAX_REPOSITORIES) {
    errors.push({ path: "sourceConfig.repositories", message: `must list 1 to ${MAX_REPOSITORIES} repository names under owner` })
  } else {
    repositories.forEach((name, i) => {
      if (typeof name !== "string" || !REPOSITORY.test(name) || name === "." || name === "..") errors.push({ path: `sourceConfig.repositories.${i}`, message: "must be a repository name (letters, digits, . _ -), without the owner" })
    })
  }
  if (!Array.isArray(include) || include.length === 0 || include.length > GITHUB_INCLUDES.length) {
    errors.push({ path: "sourceConfig.include", message: `must list any of ${GITHUB_INCLUDES.join(", ")}` })
  } else {
    include.forEach((value, i) => {
      if (!(GITHUB_INCLUDES as ReadonlyArray<unknown>).includes(value)) errors.push({ path: `sourceConfig.include.${i}`, message: `must be one of ${GITHUB_INCLUDES.join(", ")}` })
    })
  }
  let root: string | null = null
  if (baseUrl !== undefined && baseUrl !== null) {
    if (typeof baseUrl !== "string" || baseUrl.length > 2048) errors.push({ path: "sourceConfig.baseUrl", message: "must be GitHub Enterprise Server's REST root (https://github.example.com/api/v3)" })
    else {
      const checked = checkOutboundUrl(baseUrl, outboundPolicy(settings))
      if (!checked.ok) errors.push({ path: "sourceConfig.baseUrl", message: checked.message })
      else if (checked.url.username || checked.url.search || checked.url.hash) errors.push({ path: "sourceConfig.baseUrl", message: "must be a URL without credentials, query or fragment" })
      else root = checked.url.href.replace(/\/+$/, "")
    }
  }
  for (const key of Object.keys(sourceConfig)) {
    if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: "is not a GitHub setting" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    config: {
      owner: owner as string,
      repositories: [...new Set(repositories as Array<string>)],
      include: new Set(include as Array<GitHubInclude>),
      baseUrl: root
    }
  }
}

const MAX_PEM = 64 * 1024
const TOKEN = /^[A-Za-z0-9_]{20,255}$/

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readGitHubCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const message = "credential must be {\"appId\", \"installationId\", \"privateKeyPem\"} (a GitHub App installation) or {\"token\"} (a fine-grained personal access token)"
  if (typeof credential !== "object" || credential === null || Array.isArray(credential)) return { ok: false, message }
  const fields = credential as Record<string, unknown>
  const keys = Object.keys(fields).sort().join(",")
  if (keys === "token") {
    if (typeof fields.token !== "string" || !TOKEN.test(fields.token)) return { ok: false, message: "token must be a GitHub token (github_pat_…, ghp_… or ghs_…)" }
    return { ok: true, secret: JSON.stringify({ token: fields.token }) }
  }
  if (keys !== "appId,installationId,privateKeyPem") return { ok: false, message }
  const { appId, installationId, privateKeyPem } = fields
  if (!Number.isSafeInteger(appId) || (appId as number) <= 0) return { ok: false, message: "appId must be the GitHub App's numeric id" }
  if (!Number.isSafeInteger(installationId) || (installationId as number) <= 0) return { ok: false, message: "installationId must be the installation's numeric id" }
  if (typeof privateKeyPem !== "string" || privateKeyPem.length > MAX_PEM) return { ok: false, message: "privateKeyPem must be the app's private key (PEM)" }
  try {
    if (createPrivateKey(privateKeyPem).asymmetricKeyType !== "rsa") return { ok: false, message: "privateKeyPem must be an RSA key (GitHub signs app JWTs with RS256)" }
  } catch {
    return { ok: false, message: "privateKeyPem is not a valid PEM private key" }
  }
  return { ok: true, secret: JSON.stringify({ appId, installationId, privateKeyPem }) }
}

export const parseGitHubCredential = (secret: string | null): GitHubCredential | null => {
  if (secret === null) return null
  try {
    const parsed = JSON.parse(secret) as Record<string, unknown>
    if (typeof parsed.token === "string") return { kind: "TOKEN", token: parsed.token }
    if (typeof parsed.appId === "number" && typeof parsed.installationId === "number" && typeof parsed.privateKeyPem === "string") {
      return { kind: "APP", appId: parsed.appId, installationId: parsed.installationId, privateKeyPem: parsed.privateKeyPem }
    }
  } catch {
    // A credential that is not ours reads as none.
  }
  return null
}

export const GITHUB_API = "https://api.github.com"
export const GITHUB_GRAPHQL = "https://api.github.com/graphql"

/**
 * Where requests go: a GitHub Enterprise Server's REST root and its GraphQL endpoint (`/api/graphql` beside
 * `/api/v3`), or github.com's hosts, replaced only by the server setting LORE_CONNECTOR_BASE_URLS (`github`, `github-graphql`).
 */
export const githubEndpoints = (config: GitHubConfig, settings: LoreSettings) => {
  if (config.baseUrl) return { rest: config.baseUrl, graphql: `${config.baseUrl.replace(/\/v3$/, "")}/graphql` }
  return { rest: (settings.connectorBaseUrls.github ?? GITHUB_API).replace(/\/+$/, ""), graphql: settings.connectorBaseUrls["github-graphql"] ?? GITHUB_GRAPHQL }
}
