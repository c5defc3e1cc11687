import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { CliError, ExitCode } from "./errors"

/** One saved login. The token is a personal access token; the file holding it is 0600. */
export interface Profile {
  readonly server?: string
  readonly token?: string
  /** Who the token belonged to when it was saved (shown by `lore status`; not trusted for anything). */
  readonly user?: string
  readonly savedAt?: string
}

export interface ConfigFile {
  readonly profiles: Readonly<Record<string, Profile>>
}

export const DEFAULT_PROFILE = "default"

/** `$XDG_CONFIG_HOME/lore/config.json`, default `~/.config/lore/config.json`. */
export const configPath = (env: NodeJS.ProcessEnv = process.env) => {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.length > 0 ? env.XDG_CONFIG_HOME : join(homedir(), ".config")
  return join(base, "lore", "config.json")
}

export const readConfig = (path = configPath()): ConfigFile => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { profiles: {} }
    throw error
  }
  try {
    const parsed = JSON.parse(text) as Partial<ConfigFile>
    return { profiles: typeof parsed.profiles === "object" && parsed.profiles !== null ? parsed.profiles : {} }
  } catch {
    throw new CliError(ExitCode.unexpected, "CONFIG_INVALID", `${path} is not valid JSON; fix or delete it`)
  }
}

/**
 * Writes the whole file through a temporary file and a rename, so a crash never leaves half a file, and
 * a token is never readable by others: directory 0700, file 0600 (also tightened when they already exist).
 */
export const writeConfig = (config: ConfigFile, path = configPath()) => {
  const dir = dirname(path)
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify(config, null, 2) + "\n", { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, path)
}

export const updateProfile = (name: string, update: (current: Profile | undefined) => Profile | undefined, path = configPath()) => {
  const config = readConfig(path)
  const next = update(config.profiles[name])
  const profiles = { ...config.profiles }
  if (next === undefined) delete profiles[name]
  else profiles[name] = next
  writeConfig({ ...config, profiles }, path)
}
