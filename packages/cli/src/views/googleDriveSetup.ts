import type { Command } from "commander"
import type { Runtime } from "../context"
import { ask } from "../output/present"
import { jsonObjectFrom, list } from "./sharepointSetup"

/**
 * The guided setup of `lore connectors add --kind GOOGLE_DRIVE`: the admin subject, the shared drives and the users
 * whose My Drive is crawled from flags (scripts and CI) or, on a terminal, from prompts (`--users` is shared with
 * SHAREPOINT); the credential (the service account's key JSON as Google downloads it) from `--credential-stdin`, from
 * `--key-file`, or on a terminal from the path of the key file. Never from a flag value holding the key itself.
 */
export const withGoogleDriveFlags = (command: Command) =>
  command
    .option("--admin-subject <email>", "GOOGLE_DRIVE: the Workspace administrator the service account acts as (domain-wide delegation)")
    .option("--shared-drives <ids>", "GOOGLE_DRIVE: shared drive ids, comma-separated ('all' for every shared drive the admin subject is a member of)")
    .option("--key-file <path>", "GOOGLE_DRIVE: the service account's key JSON file (instead of --credential-stdin)")

export interface GoogleDriveFlags {
  readonly adminSubject?: string
  readonly sharedDrives?: string
  readonly users?: string
  readonly keyFile?: string
  readonly credentialStdin?: boolean
}

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const googleDriveConfig = async (runtime: Runtime, flags: GoogleDriveFlags, base: Readonly<Record<string, unknown>>) => {
  const adminSubject = flags.adminSubject ?? (base.adminSubject as string | undefined)
    ?? await ask(runtime, { label: "Admin subject (a Workspace administrator's email the service account acts as):", flag: "--admin-subject" })
  const drivesText = flags.sharedDrives ?? (Array.isArray(base.sharedDrives) ? (base.sharedDrives as Array<string>).join(",") : undefined)
    ?? (runtime.canPrompt ? await ask(runtime, { label: "Shared drive ids, comma-separated ('all' for every shared drive the admin subject is a member of):", flag: "--shared-drives", defaultValue: "all" }) : "all")
  const usersText = flags.users ?? (Array.isArray(base.users) ? (base.users as Array<string>).join(",") : undefined)
    ?? (runtime.canPrompt ? await ask(runtime, { label: "Users whose My Drive is crawled, comma-separated ('none' for none):", flag: "--users", defaultValue: "none" }) : "")
  const sharedDrives = drivesText.trim().toLowerCase() === "all" ? [] : list(drivesText)
  const users = usersText.trim().toLowerCase() === "none" ? [] : list(usersText)
  const { sharedDrives: _drives, users: _users, ...rest } = base
  return { ...rest, adminSubject: adminSubject.trim(), ...(sharedDrives.length > 0 ? { sharedDrives } : {}), ...(users.length > 0 ? { users } : {}) }
}

const REFUSED = "GOOGLE_DRIVE reads the service account's key JSON (as Google downloads it: {\"type\": \"service_account\", ...})"

/**
 * The key JSON, or undefined when none was offered and no terminal can ask (the connection is saved without it and
 * the next step is printed): from stdin, from `--key-file`, or from the file named at the prompt.
 */
export const googleDriveCredential = async (runtime: Runtime, flags: GoogleDriveFlags): Promise<unknown> => {
  if (flags.credentialStdin) return jsonObjectFrom(0, `--credential-stdin: ${REFUSED} from stdin`)
  if (flags.keyFile) return jsonObjectFrom(flags.keyFile, `--key-file: ${REFUSED}`)
  if (!runtime.canPrompt) return undefined
  const path = await ask(runtime, { label: "Path of the service account's key JSON file:", flag: "--key-file" })
  return jsonObjectFrom(path.trim(), REFUSED)
}
