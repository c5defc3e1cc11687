import { createPrivateKey } from "node:crypto"
import type { FieldError } from "../../domain/Errors"

export interface GoogleDriveConfig {
  /** A Workspace administrator the service account acts as (domain-wide delegation): shared drives and the directory are read as them. */
  readonly adminSubject: string
  /** Shared drive ids; empty: every shared drive the admin subject is a member of. */
  readonly sharedDrives: ReadonlyArray<string>
  /** Users (emails) whose My Drive is crawled, each read as that user. */
  readonly users: ReadonlyArray<string>
}

/** What Lore keeps of the service-account key JSON Google downloads: the fields a signed token request needs. */
export interface ServiceAccountKey {
  readonly client_email: string
  readonly private_key_id: string
  readonly private_key: string
  readonly token_uri: string
  readonly project_id?: string | undefined
  readonly client_id?: string | undefined
}

const EMAIL = /^[^\s@,;<>"'/\\]{1,64}@[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/i
/** Shared drive ids are Drive file ids of the drive's root: letters, digits, `-` and `_`. */
const DRIVE_ID = /^[A-Za-z0-9_-]{10,100}$/
const MAX_DRIVES = 500
const MAX_USERS = 1000
const KEYS = ["adminSubject", "sharedDrives", "users"]

export const readGoogleDriveConfig = (
  sourceConfig: Readonly<Record<string, unknown>>
): { readonly ok: true; readonly config: GoogleDriveConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { adminSubject, sharedDrives, users } = sourceConfig
  if (typeof adminSubject !== "string" || !EMAIL.test(adminSubject)) {
    errors.push({ path: "sourceConfig.adminSubject", message: "must be the email of a Workspace administrator the service account acts as (domain-wide delegation)" })
  }
  if (sharedDrives !== undefined) {
    if (!Array.isArray(sharedDrives) || sharedDrives.length === 0 || sharedDrives.length > MAX_DRIVES) {
      errors.push({ path: "sourceConfig.sharedDrives", message: `must list 1 to ${MAX_DRIVES} shared drive ids (leave it out for every shared drive the admin subject is a member of)` })
    } else {
      sharedDrives.forEach((drive, i) => {
        if (typeof drive !== "string" || !DRIVE_ID.test(drive)) errors.push({ path: `sourceConfig.sharedDrives.${i}`, message: "must be a shared drive id (the last part of its URL, drive/folders/{id})" })
      })
    }
  }
  if (users !== undefined) {
    if (!Array.isArray(users) || users.length > MAX_USERS) errors.push({ path: "sourceConfig.users", message: `must list at most ${MAX_USERS} emails` })
    else users.forEach((user, i) => {
      if (typeof user !== "string" || !EMAIL.test(user)) errors.push({ path: `sourceConfig.users.${i}`, message: "must be the email of a user in the Workspace domain" })
    })
  }
  for (const key of Object.keys(sourceConfig)) {
    if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: "is not a Google Drive setting" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return {
    ok: true,
    config: {
      adminSubject: (adminSubject as string).toLowerCase(),
      sharedDrives: [...new Set((sharedDrives as Array<string> | undefined) ?? [])],
      users: [...new Set(((users as Array<string> | undefined) ?? []).map((u) => u.toLowerCase()))]
    }
  }
}

const MAX_FIELD = 512
const MAX_PRIVATE_KEY = 16 * 1024

/**
 * The credential as stored (JSON of the fields Lore uses), or a message that never repeats a value. The key file must
 * be a service account's (`type: service_account`) with an RSA private key in PEM; its `token_uri` (https) is where
 * tokens are asked for unless the server setting `google-token` replaces it, through the outbound guard like every fetch.
 */
export const readGoogleDriveCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const message = "credential must be the service account's key JSON as Google downloads it (type service_account, client_email, private_key_id, private_key, token_uri)"
  if (typeof credential !== "object" || credential === null || Array.isArray(credential)) return { ok: false, message }
  const fields = credential as Record<string, unknown>
  if (Object.keys(fields).length > 30) return { ok: false, message }
  const { type, client_email, private_key_id, private_key, token_uri, project_id, client_id } = fields
  if (type !== "service_account") return { ok: false, message: "the key JSON's type must be service_account (a service account's key, not an OAuth client's)" }
  if (typeof client_email !== "string" || client_email.length > MAX_FIELD || !EMAIL.test(client_email)) return { ok: false, message: "the key JSON's client_email must be the service account's email" }
  if (typeof private_key_id !== "string" || !/^[A-Za-z0-9]{1,100}$/.test(private_key_id)) return { ok: false, message: "the key JSON's private_key_id is missing or malformed" }
  if (typeof private_key !== "string" || private_key.length > MAX_PRIVATE_KEY) return { ok: false, message: "the key JSON's private_key is missing or too large" }
  try {
    const key = createPrivateKey(private_key)
    if (key.asymmetricKeyType !== "rsa") return { ok: false, message: "the key JSON's private_key must be an RSA key (Google signs with RS256)" }
  } catch {
    return { ok: false, message: "the key JSON's private_key is not a valid PEM private key" }
  }
  if (typeof token_uri !== "string" || token_uri.length > 2048) return { ok: false, message: "the key JSON's token_uri is missing" }
  const tokenUrl = URL.canParse(token_uri) ? new URL(token_uri) : null
  if (!tokenUrl || tokenUrl.protocol !== "https:" || tokenUrl.username || tokenUrl.password || tokenUrl.hash) return { ok: false, message: "the key JSON's token_uri must be an https address (https://oauth2.googleapis.com/token)" }
  for (const [name, value] of [["project_id", project_id], ["client_id", client_id]] as const) {
    if (value !== undefined && (typeof value !== "string" || value.length > MAX_FIELD)) return { ok: false, message: `the key JSON's ${name} must be a string` }
  }
  const kept: ServiceAccountKey = {
    client_email: client_email.toLowerCase(),
    private_key_id,
    private_key,
    token_uri: tokenUrl.href,
    ...(typeof project_id === "string" ? { project_id } : {}),
    ...(typeof client_id === "string" ? { client_id } : {})
  }
  return { ok: true, secret: JSON.stringify(kept) }
}

export const parseGoogleDriveCredential = (secret: string | null): ServiceAccountKey | null => {
  if (secret === null) return null
  try {
    const parsed = JSON.parse(secret) as Record<string, unknown>
    if (typeof parsed.client_email === "string" && typeof parsed.private_key === "string" && typeof parsed.private_key_id === "string" && typeof parsed.token_uri === "string") {
      return parsed as unknown as ServiceAccountKey
    }
  } catch {
    // A credential that is not ours reads as none.
  }
  return null
}
