import type { FieldError } from "../../domain/Errors"

export interface SlackConfig {
  /** Channel ids (`C…` public or private, `G…` older private ones); a name still here is resolved by the crawl. */
  readonly channels: ReadonlyArray<string>
  /** Days before the newest message read that each crawl reads again, for edits, deletions and new replies (default 7). */
  readonly rescanDays: number
}

/** Secrets only: the internal app's bot token (`xoxb-…`). */
export interface SlackCredential {
  readonly token: string
}

export const CHANNEL_ID = /^[CG][A-Z0-9]{6,20}$/
/** Slack's channel names: lower-case letters, digits, `-`, `_` and `.` (and letters of other scripts), at most 80. */
const CHANNEL_NAME = /^[\p{Ll}\p{Lo}\p{N}_-][\p{Ll}\p{Lo}\p{N}\p{M}_.-]{0,79}$/u
const MAX_CHANNELS = 500
const MAX_RESCAN_DAYS = 90
export const DEFAULT_RESCAN_DAYS = 7
const KEYS = ["channels", "rescanDays"]

export const isChannelId = (value: string) => CHANNEL_ID.test(value)

export const readSlackConfig = (
  sourceConfig: Readonly<Record<string, unknown>>
): { readonly ok: true; readonly config: SlackConfig } | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> } => {
  const errors: Array<FieldError> = []
  const { channels, rescanDays } = sourceConfig
  if (!Array.isArray(channels) || channels.length === 0 || channels.length > MAX_CHANNELS) {
    errors.push({ path: "sourceConfig.channels", message: `must list 1 to ${MAX_CHANNELS} channel ids (C…, G…) or names without '#'` })
  } else {
    channels.forEach((channel, i) => {
      if (typeof channel !== "string" || !(CHANNEL_ID.test(channel) || CHANNEL_NAME.test(channel))) {
        errors.push({ path: `sourceConfig.channels[${i}]`, message: "must be a channel id (C…, G…) or a channel name without '#'" })
      }
    })
  }
  if (rescanDays !== undefined && (typeof rescanDays !== "number" || !Number.isInteger(rescanDays) || rescanDays < 0 || rescanDays > MAX_RESCAN_DAYS)) {
    errors.push({ path: "sourceConfig.rescanDays", message: `must be a whole number of days from 0 to ${MAX_RESCAN_DAYS}` })
  }
  for (const key of Object.keys(sourceConfig)) {
    if (!KEYS.includes(key)) errors.push({ path: `sourceConfig.${key.slice(0, 64)}`, message: "is not a Slack setting" })
  }
  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, config: { channels: [...new Set(channels as Array<string>)], rescanDays: (rescanDays as number | undefined) ?? DEFAULT_RESCAN_DAYS } }
}

const TOKEN = /^xox[bp]-[A-Za-z0-9-]{10,500}$/

/** The credential as stored (JSON), or a message that never repeats the value. */
export const readSlackCredential = (credential: unknown): { readonly ok: true; readonly secret: string } | { readonly ok: false; readonly message: string } => {
  const message = "credential must be {\"token\"}: the Slack app's bot token (xoxb-…), from OAuth & Permissions after installing the app"
  if (typeof credential !== "object" || credential === null || Array.isArray(credential)) return { ok: false, message }
  const fields = credential as Record<string, unknown>
  if (Object.keys(fields).join(",") !== "token" || typeof fields.token !== "string" || !TOKEN.test(fields.token)) return { ok: false, message }
  return { ok: true, secret: JSON.stringify({ token: fields.token }) }
}

export const parseSlackCredential = (secret: string | null): SlackCredential | null => {
  if (secret === null) return null
  try {
    const parsed = JSON.parse(secret) as Record<string, unknown>
    if (typeof parsed.token === "string") return { token: parsed.token }
  } catch {
    // A credential that is not ours reads as none.
  }
  return null
}
