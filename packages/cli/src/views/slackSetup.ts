import type { Command } from "commander"
import type { Runtime } from "../context"
import { usageError } from "../errors"
import { ask } from "../output/present"
import { guidedSecret } from "./connectors"

/**
 * The guided setup of `lore connectors add --kind SLACK`: the channels (ids, or names the server stores as ids) and
 * the rescan window from flags (scripts and CI) or, on a terminal, from prompts; the bot token from
 * `--credential-stdin` (the token alone, or `{"token": ...}`), LORE_CONNECTOR_CREDENTIAL or a hidden prompt. Never
 * from a flag value: it would land in the shell's history and in `ps`.
 */
export const withSlackFlags = (command: Command) =>
  command
    .option("--channels <channels>", "SLACK: channel ids (C…, G…) or names without '#', comma-separated; names are stored as ids")
    .option("--rescan-days <days>", "SLACK: days before the newest message each crawl reads again, for edits, deletions and late replies (default 7)")

export interface SlackFlags {
  readonly channels?: string
  readonly rescanDays?: string
  readonly credentialStdin?: boolean
}

/** The sourceConfig settings, each from its flag, the existing config, or a prompt (which fails in CI naming the flag). */
export const slackConfig = async (runtime: Runtime, flags: SlackFlags, base: Readonly<Record<string, unknown>>) => {
  const channelsText = flags.channels ?? (Array.isArray(base.channels) ? (base.channels as Array<string>).join(",") : undefined)
    ?? await ask(runtime, { label: "Channels to index (names or ids, comma-separated; invite the app to each):", flag: "--channels" })
  const channels = channelsText.split(",").map((channel) => channel.trim().replace(/^#/, "")).filter((channel) => channel.length > 0)
  if (channels.length === 0) throw usageError("--channels: pass at least one channel name or id")
  const daysText = flags.rescanDays ?? (typeof base.rescanDays === "number" ? String(base.rescanDays) : undefined)
    ?? (runtime.canPrompt ? await ask(runtime, { label: "Days re-read by each crawl for edits and late replies:", flag: "--rescan-days", defaultValue: "7" }) : "7")
  const rescanDays = Number(daysText)
  if (!Number.isInteger(rescanDays) || rescanDays < 0 || rescanDays > 90) throw usageError("--rescan-days: pass a whole number of days from 0 to 90")
  return { ...base, channels, rescanDays }
}

/** The credential `{token}`, or undefined when none was offered and no terminal can ask. */
export const slackCredential = async (runtime: Runtime, flags: SlackFlags): Promise<unknown> => {
  const given = await guidedSecret(runtime, flags, "Bot User OAuth Token (xoxb-…, from the app's OAuth & Permissions page):")
  if (given === undefined) return undefined
  return "json" in given ? given.json : { token: given.text }
}
