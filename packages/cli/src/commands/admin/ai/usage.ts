import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { usageView } from "../../../views/ai"

/** A date or date-time as given, checked here so a typo is a usage error rather than a round trip. */
const when = (flag: string, raw: string | undefined) => {
  if (raw === undefined) return undefined
  if (Number.isNaN(Date.parse(raw))) throw usageError(`${flag} must be a date (2026-11-01) or an ISO date-time`)
  return new Date(raw).toISOString()
}

export default defineCommand({
  description: "model calls, tokens and time by day, workload, gateway and model",
  examples: ["lore admin ai usage", "lore admin ai usage --since 2026-11-01 --until 2026-12-01", "lore --json admin ai usage"],
  configure: (command) =>
    command
      .option("--since <date>", "start, inclusive (default: 30 days before --until)")
      .option("--until <date>", "end, exclusive (default: now)"),
  run: async (runtime, command) => {
    const flags = command.opts<{ since?: string; until?: string }>()
    const since = when("--since", flags.since)
    const until = when("--until", flags.until)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading AI usage",
      run: () => lore.admin.ai.usage({ ...(since ? { since } : {}), ...(until ? { until } : {}) }),
      view: usageView
    })
  }
})
