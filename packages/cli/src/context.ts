import { createLoreClient, type LoreClient } from "@lore/sdk"
import type { Command } from "commander"
import { version } from "../package.json"
import { configPath, DEFAULT_PROFILE, type Profile, readConfig } from "./config"
import { notAuthenticated, usageError } from "./errors"

export type { LoreClient }

/** The program-wide flags, as commander parsed them (`--no-color` becomes `color: false`). */
export interface GlobalOptions {
  readonly json?: boolean
  readonly server?: string
  readonly profile?: string
  readonly color?: boolean
}

/**
 * json: exactly one JSON document on stdout; tty: Ink (colors, spinner, tables fitted to the terminal);
 * plain: aligned text without escape codes, for pipes, files and CI logs.
 */
export type OutputMode = "json" | "tty" | "plain"

/** Where the server and token of this invocation came from; `lore status` reports it. */
export interface Target {
  readonly server: string
  readonly token: string | undefined
  readonly serverSource: "flag" | "env" | "profile" | "default"
  readonly tokenSource: "env" | "profile" | undefined
}

export const DEFAULT_SERVER = "http://127.0.0.1:8787"
export const cliVersion: string = version

/** Everything a command needs from its environment, resolved once per invocation. */
export interface Runtime {
  readonly options: GlobalOptions
  readonly env: NodeJS.ProcessEnv
  readonly output: OutputMode
  readonly color: boolean
  readonly profileName: string
  readonly configPath: string
  /** A prompt may be shown: stdin and stderr are terminals and CI is not set. */
  readonly canPrompt: boolean
  /** With --json, long work may show its progress on stderr: stderr is a terminal and CI is not set. */
  readonly progressOnStderr: boolean
  readonly profile: () => Profile | undefined
  readonly target: () => Target
  /** A client for the target; with `requireToken` fails with exit 3 before any request when there is no token. */
  readonly client: (options?: { readonly requireToken?: boolean; readonly server?: string; readonly token?: string }) => LoreClient
}

const isSet = (value: string | undefined) => value !== undefined && value !== "" && value !== "0" && value !== "false"

export const normalizeServer = (raw: string): string => {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw usageError(`invalid server URL '${raw}': pass --server http(s)://host:port`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw usageError(`invalid server URL '${raw}': only http and https are supported`)
  }
  return url.toString().replace(/\/+$/, "")
}

export const createRuntime = (command: Command, env: NodeJS.ProcessEnv = process.env): Runtime => {
  const options = command.optsWithGlobals<GlobalOptions>()
  const color = options.color !== false && !isSet(env.NO_COLOR)
  // In CI nothing is animated (a log keeps every frame): output is plain text even on a terminal.
  const output: OutputMode = options.json ? "json" : process.stdout.isTTY && env.TERM !== "dumb" && !isSet(env.CI) ? "tty" : "plain"
  const profileName = options.profile ?? (env.LORE_PROFILE || DEFAULT_PROFILE)
  const path = configPath(env)
  let loaded: { profile: Profile | undefined } | undefined
  const profile = () => {
    loaded ??= { profile: readConfig(path).profiles[profileName] }
    return loaded.profile
  }

  const target = (): Target => {
    const stored = profile()
    const [rawServer, serverSource] = options.server
      ? [options.server, "flag" as const]
      : env.LORE_SERVER || env.LORE_URL
        ? [(env.LORE_SERVER || env.LORE_URL)!, "env" as const]
        : stored?.server
          ? [stored.server, "profile" as const]
          : [DEFAULT_SERVER, "default" as const]
    const server = normalizeServer(rawServer)
    if (env.LORE_TOKEN) return { server, token: env.LORE_TOKEN, serverSource, tokenSource: "env" }
    // A saved token is only ever sent to the server it was saved for, never to another --server.
    const storedServer = stored?.server ? normalizeServer(stored.server) : undefined
    if (stored?.token && storedServer === server) return { server, token: stored.token, serverSource, tokenSource: "profile" }
    return { server, token: undefined, serverSource, tokenSource: undefined }
  }

  const client: Runtime["client"] = (overrides = {}) => {
    const resolved = target()
    const server = overrides.server ?? resolved.server
    const token = overrides.token ?? resolved.token
    if (overrides.requireToken && !token) {
      throw notAuthenticated(
        `not logged in to ${server} (profile ${profileName}): run 'lore login --server ${server} --token <token>' or set LORE_TOKEN`
      )
    }
    return createLoreClient({
      baseUrl: server,
      ...(token ? { token } : {}),
      userAgent: `lore-cli/${cliVersion} node/${process.versions.node}`
    })
  }

  return {
    options,
    env,
    output,
    color,
    profileName,
    configPath: path,
    canPrompt: Boolean(process.stdin.isTTY) && Boolean(process.stderr.isTTY) && !isSet(env.CI),
    progressOnStderr: output === "json" && Boolean(process.stderr.isTTY) && env.TERM !== "dumb" && !isSet(env.CI),
    profile,
    target,
    client
  }
}
