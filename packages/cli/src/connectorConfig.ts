import type { Command } from "commander"
import { usageError } from "./errors"

/** `--config <json>`: settings of the connection's sourceConfig for its kind (WEB: baseUrl, prefixes, ...). */
export const withConfig = (command: Command) =>
  command.option("--config <json>", "sourceConfig settings as a JSON object, e.g. '{\"baseUrl\":\"https://example.com/docs/\"}' for WEB")

/** The --config object, or a usage error (exit 2) when it is not a JSON object. */
export const readConfigFlag = (value: string | undefined): Record<string, unknown> => {
  if (value === undefined) return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    throw usageError("--config is not valid JSON", `pass an object, e.g. --config '{"baseUrl":"https://example.com/docs/"}'`)
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw usageError("--config must be a JSON object")
  return parsed as Record<string, unknown>
}
