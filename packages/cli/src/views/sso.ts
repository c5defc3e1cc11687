import type { SsoSettings } from "@lore/sdk"
import { formatTime, styled, type View } from "../output/view"

export const ssoView = (settings: SsoSettings, title?: string): View => [
  ...(title ? [{ kind: "message" as const, tone: "success" as const, text: title }] : []),
  {
    kind: "fields",
    fields: [
      ["Enabled", settings.enabled ? styled("yes", "success") : styled("no", "muted")],
      ["Issuer", settings.issuer || styled("(not set)", "muted")],
      ["Client id", settings.clientId || styled("(not set)", "muted")],
      ["Client secret", settings.clientSecretSet ? "set (write-only)" : styled("not set", "warning")],
      ["Just-in-time users", settings.justInTimeCreation ? "yes" : "no"],
      ["Redirect URI", `<server>${settings.redirectPath}`],
      ["Version", String(settings.version)],
      ["Updated", formatTime(settings.updatedAt)]
    ]
  }
]
