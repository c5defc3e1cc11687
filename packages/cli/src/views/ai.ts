import type { AiRoute, AiUsage, AiWorkload, Gateway, GatewayPreset, GatewayTest, IndexSettings, LoreClient, ProviderPreset, ProviderReasoningEffort } from "@lore/sdk"
import { aiWorkloadValues, gatewayPresetValues, providerReasoningEffortValues } from "@lore/sdk"
import { oneOf, parseCount } from "../arguments"
import { readFileSync } from "node:fs"
import { CliError, ExitCode, usageError } from "../errors"
import { type Cell, styled, type View } from "../output/view"

// What `lore admin ai ...` shares: argument parsing, lookups by key, and the views.

export const workloadArgument = oneOf<AiWorkload>(aiWorkloadValues)
export const presetArgument = oneOf<GatewayPreset>(gatewayPresetValues)
export const effortArgument = oneOf<ProviderReasoningEffort>(providerReasoningEffortValues)
export const secondsArgument = parseCount(1, 600)
export const versionArgument = parseCount(0, Number.MAX_SAFE_INTEGER)

/** A gateway named by its key (`local`, `openai`) or id; exit 5 when there is none. */
export const findGateway = async (lore: LoreClient, ref: string): Promise<Gateway> => {
  const gateways = await lore.admin.ai.gateways()
  const wanted = ref.trim().toLowerCase()
  const found = gateways.find((gateway) => gateway.id === wanted || gateway.gatewayKey === wanted)
  if (!found) {
    throw new CliError(ExitCode.notFound, "GATEWAY_NOT_FOUND", `no AI gateway '${ref}' (gateways: ${gateways.map((gateway) => gateway.gatewayKey).join(", ")})`)
  }
  return found
}

/**
 * The API key, from stdin (`--stdin`) or a hidden prompt on a terminal; never from an argument, which would
 * land in the shell's history and the process list. Without a terminal (or in CI) and without --stdin, it
 * fails at once naming --stdin, so a script never hangs on a prompt.
 */
export const readApiKey = async (
  runtime: { readonly canPrompt: boolean },
  fromStdin: boolean,
  prompt: () => Promise<string>,
  gatewayKey: string
): Promise<string> => {
  if (fromStdin) {
    if (process.stdin.isTTY) throw usageError("--stdin reads the API key from stdin, but stdin is a terminal; pipe the key in, or leave out --stdin to be asked")
    const key = readFileSync(0, "utf8").trim()
    if (key === "") throw usageError("--stdin: stdin was empty; pipe the API key in")
    return key
  }
  if (!runtime.canPrompt) {
    throw usageError(
      `cannot prompt for the API key (stdin is not a terminal or CI is set); pipe it in with --stdin, e.g. printf %s "$KEY" | lore admin ai gateways credential ${gatewayKey} --stdin`
    )
  }
  return prompt()
}

const enabledCell = (enabled: boolean): Cell => (enabled ? styled("enabled", "success") : styled("disabled", "warning"))

export const providersView = (presets: ReadonlyArray<ProviderPreset>): View => [
  {
    kind: "table",
    columns: [{ header: "preset" }, { header: "name" }, { header: "protocol" }, { header: "default base url" }, { header: "embeddings" }],
    rows: presets.map((preset) => [styled(preset.preset, "accent"), preset.displayName, preset.protocol, preset.defaultBaseUrl, preset.supportsEmbeddings ? "yes" : "no"]),
    empty: "No provider presets."
  }
]

export const gatewaysView = (gateways: ReadonlyArray<Gateway>): View => [
  {
    kind: "table",
    columns: [{ header: "key" }, { header: "preset" }, { header: "base url" }, { header: "status" }, { header: "key set" }, { header: "source" }, { header: "version", align: "right" }, { header: "id" }],
    rows: gateways.map((gateway) => [
      styled(gateway.gatewayKey, "accent"),
      gateway.preset,
      gateway.baseUrl,
      enabledCell(gateway.enabled),
      gateway.credentialSet ? "yes" : gateway.protocol === "LOCAL" ? "-" : styled("no", "muted"),
      gateway.editable ? gateway.source : styled(`${gateway.source} (read-only)`, "muted"),
      String(gateway.version),
      styled(gateway.id, "muted")
    ]),
    empty: "No gateways."
  }
]

export const gatewayView = (gateway: Gateway, headline: string): View => [
  { kind: "message", tone: "success", text: headline },
  {
    kind: "fields",
    fields: [
      ["Id", styled(gateway.id, "muted")],
      ["Preset", `${gateway.preset} (${gateway.protocol})`],
      ["Base URL", gateway.baseUrl],
      ["Timeout", `${gateway.requestTimeoutSeconds} s`],
      ["Status", enabledCell(gateway.enabled)],
      ["API key", gateway.credentialSet ? `set ${gateway.credentialSetAt ?? ""}`.trim() : "not set"],
      ["Version", String(gateway.version)]
    ]
  }
]

export const testView = (gateway: string, result: GatewayTest): View =>
  result.authenticated
    ? [
        { kind: "message", tone: "success", text: `${gateway}: authenticated, ${result.models.length} models (${result.durationMillis} ms)` },
        { kind: "table", columns: [{ header: "model" }, { header: "name" }], rows: result.models.map((model) => [model.id, model.displayName]), empty: "The provider lists no models." }
      ]
    : [{ kind: "message", tone: "error", text: `${gateway}: ${result.errorCode ?? "FAILED"}: ${result.errorMessage ?? "the test failed"}` }]

export const routesView = (routes: ReadonlyArray<AiRoute>): View => [
  {
    kind: "table",
    columns: [{ header: "workload" }, { header: "gateway" }, { header: "model" }, { header: "effort/size" }, { header: "source" }, { header: "version", align: "right" }, { header: "note" }],
    rows: routes.map((route) => [
      styled(route.workload, "accent"),
      route.gatewayKey,
      route.modelId,
      route.providerReasoningEffort ?? (route.dimensions === undefined ? "-" : `${route.dimensions} dims`),
      route.source === "ADMIN" ? route.source : styled(route.source, "muted"),
      String(route.version),
      route.lifecycleNote ?? ""
    ]),
    empty: "No routes."
  }
]

/** A re-embedding in progress, in one line: "generation 2 (model-b on gateway-b): 64 of 120 chunks, job RUNNING". */
export const reembeddingLine = (reembedding: NonNullable<IndexSettings["reembedding"]>) =>
  `generation ${reembedding.generation} (${reembedding.embeddingModel} on ${reembedding.gatewayKey}, ${reembedding.dimensions} dimensions): ` +
  `${reembedding.chunksEmbedded} of ${reembedding.chunksTotal} chunks embedded, job ${reembedding.jobStatus ?? "not queued"}`

export const indexSettingsView = (settings: IndexSettings): View => [
  {
    kind: "fields",
    fields: [
      ["Embedding provider", settings.embeddingProvider],
      ["Embedding model", settings.embeddingModel],
      ["Dimensions", String(settings.dimensions)],
      ["Distance", settings.distanceMetric],
      ["Managed by", settings.managementMode],
      ["Generation", settings.generation === null ? "none (lexical search)" : String(settings.generation)],
      ["Re-embedding", settings.reembedding ? reembeddingLine(settings.reembedding) : "none"],
      ["Editable", settings.editable ? "yes" : "no"]
    ]
  },
  { kind: "message", tone: "muted", text: settings.lifecycleNote }
]

/** After a DOCUMENT_EMBEDDING route change: what the search index does about it. */
export const indexChangeView = (settings: IndexSettings): View => [
  settings.reembedding
    ? { kind: "message", tone: "success", text: `Re-embedding queued: ${reembeddingLine(settings.reembedding)}. Search keeps its current vectors until it completes ('lore admin ai index-settings' shows the progress).` }
    : { kind: "message", tone: "muted", text: settings.lifecycleNote }
]

type UsageTotals = AiUsage["totals"]
const usageCells = (totals: UsageTotals): Array<Cell> => [
  String(totals.calls), totals.failedCalls ? styled(String(totals.failedCalls), "error") : "0", String(totals.inputTokens), String(totals.outputTokens),
  `${(totals.durationMillis / 1000).toFixed(1)}s`
]
const usageColumns = [
  { header: "calls", align: "right" as const }, { header: "failed", align: "right" as const }, { header: "tokens in", align: "right" as const },
  { header: "tokens out", align: "right" as const }, { header: "time", align: "right" as const }
]

export const usageView = (usage: AiUsage): View => [
  { kind: "message", tone: "muted", text: `From ${usage.since} to ${usage.until}` },
  { kind: "fields", fields: [["Calls", String(usage.totals.calls)], ["Failed", String(usage.totals.failedCalls)], ["Tokens in", String(usage.totals.inputTokens)], ["Tokens out", String(usage.totals.outputTokens)]] },
  { kind: "table", columns: [{ header: "day" }, ...usageColumns], rows: usage.byDay.map((row) => [row.day, ...usageCells(row)]), empty: "No model calls in this period." },
  { kind: "table", columns: [{ header: "workload" }, ...usageColumns], rows: usage.byWorkload.map((row) => [row.workload, ...usageCells(row)]), empty: "" },
  { kind: "table", columns: [{ header: "gateway" }, { header: "model" }, ...usageColumns], rows: usage.byModel.map((row) => [styled(row.gatewayKey, "accent"), row.modelId, ...usageCells(row)]), empty: "" }
]
