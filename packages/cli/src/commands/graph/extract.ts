import type { GraphJob } from "@lore/sdk"
import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { jobsView } from "../../views/graph"

interface IndexFlags {
  readonly wait: boolean
}

export default defineCommand({
  description: "queue graph extraction of knowledge assets (their current versions) and wait until the jobs end",
  aliases: ["index"],
  examples: [
    "lore graph index 3f0c9a4e-5b1d-4c7a-9e2f-8a6b1c2d3e4f",
    "lore graph index <assetId> <assetId> --no-wait",
    "lore --json graph index <assetId> | jq '.[0].status'"
  ],
  notes: "An asset with an active job answers that job. Exits 0 when every job SUCCEEDED (or was queued, with --no-wait); 6 when one FAILED or was CANCELLED.",
  configure: (command) =>
    command
      .argument("<asset...>", "knowledge asset ids (lore catalog shows them)")
      .option("--no-wait", "return once queued"),
  run: async (runtime, command) => {
    const [assets] = command.processedArgs as [Array<string>]
    const ids = assets.map((asset) => requireId(asset, "knowledge asset", "lore catalog shows knowledge asset ids"))
    const flags = command.opts<IndexFlags>()
    const lore = runtime.client({ requireToken: true })
    const run = async () => {
      const queued: Array<GraphJob> = []
      for (const id of ids) queued.push(await lore.graph.index(id))
      if (!flags.wait) return queued
      return Promise.all(queued.map((job) => lore.graph.waitUntilSettled(job.id, {
        intervalMs: 500,
        onStatus: (current) => {
          if (runtime.output !== "tty") process.stderr.write(`${current.id} ${current.status} ${current.chunksDone}/${current.chunksTotal}\n`)
        }
      })))
    }
    const jobs = await present(runtime, { progress: `Extracting ${ids.length} asset${ids.length === 1 ? "" : "s"} into the graph`, run, view: jobsView })
    const bad = jobs.find((job) => job.status === "FAILED" || job.status === "CANCELLED")
    if (bad) throw new CliError(ExitCode.invalid, bad.lastErrorCode ?? `GRAPH_JOB_${bad.status}`, `graph job ${bad.id} ended ${bad.status}${bad.lastErrorMessage ? `: ${bad.lastErrorMessage}` : ""}`)
  }
})
