import { setTimeout as sleep } from "node:timers/promises"
import type { ConnectorActivity } from "@lore/sdk"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { activityView, kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "crawl a connection now and wait until the crawl ends (--no-wait: only queue it); prints its activity",
  examples: ["lore connectors crawl wiki --kind WEB", "lore connectors crawl wiki --kind WEB --no-wait", "lore connectors crawl wiki --kind WEB --timeout 600 --json"],
  notes: "A PUSH connection has nothing to crawl: its pusher sends documents (lore push). Exit 6 when a crawl of the connection is already running.",
  configure: (command) =>
    withKind(command.argument("<key>", "the connection's key"))
      .option("--no-wait", "queue the crawl and return")
      .option("--permissions", "only sync permissions (ACLs and groups, no content); by default a crawl also starts a permission sync where the kind has one")
      .option("--timeout <seconds>", "how long to wait for the crawl to end (default 300)", (value: string) => Number(value), 300),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const kind = kindOf(command)
    const { wait, timeout, permissions } = command.opts<{ wait: boolean; timeout: number; permissions?: boolean }>()
    // What is waited for: the content crawl, or with --permissions the permission sync.
    const component = permissions ? "permissions" : "content"
    const attemptsOf = (a: ConnectorActivity) => a.recentAttempts.filter((attempt) => attempt.component === component)
    const checkpointOf = (a: ConnectorActivity) => a.componentCheckpoints.find((c) => c.component === component)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Crawling ${kind} connection ${key}`,
      run: async (progress): Promise<ConnectorActivity> => {
        const before = await lore.admin.connectors.activity(kind, key)
        const attemptsBefore = attemptsOf(before).length
        const lastBefore = attemptsOf(before)[0]?.attemptedAt
        await lore.admin.connectors.crawl(kind, key, permissions ? "permissions" : undefined)
        if (!wait) return before
        const deadline = Date.now() + timeout * 1000
        for (;;) {
          const now = await lore.admin.connectors.activity(kind, key)
          const latest = attemptsOf(now)[0]
          if (latest && (attemptsOf(now).length !== attemptsBefore || latest.attemptedAt !== lastBefore) && latest.outcome !== "FAILED") return now
          if (latest?.outcome === "FAILED" && latest.attemptedAt !== lastBefore && checkpointOf(now)?.captureStatus !== "IN_PROGRESS") {
            throw new CliError(ExitCode.unexpected, latest.errorCode ?? "CRAWL_FAILED", `the crawl of ${key} failed: ${latest.errorMessage ?? "no detail"}`)
          }
          const running = checkpointOf(now)?.progress
          if (running) {
            const remaining = running.objectsRemaining
            progress({ done: running.objectsProcessed, total: remaining === null ? null : running.objectsProcessed + remaining, unit: "document" })
          }
          if (Date.now() > deadline) throw new CliError(ExitCode.unexpected, "CRAWL_TIMEOUT", `the crawl of ${key} did not end within ${timeout}s; see lore connectors activity ${key}`)
          await sleep(1000)
        }
      },
      view: (a) => [{ kind: "message", tone: wait ? "success" : "muted", text: wait ? `Crawled ${kind} connection ${key}` : `Queued a crawl of ${kind} connection ${key}` }, ...activityView(a)]
    })
  }
})
