import { HttpApiBuilder } from "@effect/platform"
import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AccessLive } from "./access/Layer"
import { AiLive } from "./ai/Layer"
import { AssistantLive } from "./assistant/Layer"
import { AssistantFilesLive } from "./assistant/files/Layer"
import { AssistantEvidenceLive } from "./assistant/evidence/Layer"
import { AssetsLive } from "./assets/Layer"
import type { EmbeddingSettings } from "./ai/EmbeddingSettings"
import { Settings } from "./Config"
import { DatabaseLive } from "./db/Layer"
import { LoreApi } from "./http/Api"
import { EndpointAccessLive, serveApi, serverUrl } from "./http/Http"
import { HandlerGroups } from "./Handlers"
import { BootstrapLive, FirstStart } from "./identity/Bootstrap"
import { IdentityLive } from "./identity/Layer"
import { JobsLive, JobWorkers } from "./jobs/Worker"
import { KnowledgeLive } from "./knowledge/Layer"
import { GraphLive } from "./graph/Layer"
import { PlatformLive } from "./platform/Layer"
import { ProvisioningLive } from "./provisioning/Layer"
import { ConnectorsLive } from "./connectors/Layer"
import { makeScimApp } from "./provisioning/scim/Http"
import { SCIM_BASE_PATH } from "./provisioning/Connections"
import { mountRaw } from "./http/RawRoutes"
import { makeMcpApp, MCP_PATH } from "./mcp/Http"
import { ParsePool } from "./parsing-pool/ParsePool"

/**
 * Every area's services; each area's layer brings its own dependencies, shared ones are built once. The
 * access area also fills what the platform area declares and cannot import: the audit trail's labels.
 */
// The assets area runs prompts on the model layer: it gets the ai area's services (the same layer, built once).
const AreasLive = AssistantLive.pipe(
  Layer.provideMerge(AssistantEvidenceLive),
  Layer.provideMerge(Layer.mergeAll(PlatformLive, IdentityLive, KnowledgeLive, AiLive, AssistantFilesLive, Layer.provide(AssetsLive, AiLive), Layer.provide(GraphLive, Layer.merge(AiLive, PlatformLive)), ProvisioningLive, ConnectorsLive)),
  Layer.provideMerge(AccessLive)
)

/**
 * The database (only once migrated), the job queue, the areas, then the job workers and first-start
 * bootstrap, which use the areas' services.
 */
const FoundationLive = Layer.mergeAll(BootstrapLive, JobWorkers.Default).pipe(
  Layer.provideMerge(AreasLive),
  Layer.provideMerge(JobsLive),
  Layer.provideMerge(EndpointAccessLive),
  Layer.provideMerge(DatabaseLive)
)

/** Routes beside the HttpApi, in their own protocols (http/RawRoutes.ts). */
const RawRoutesLive = Layer.mergeAll(mountRaw(SCIM_BASE_PATH, makeScimApp), mountRaw(MCP_PATH, makeMcpApp))

/** Every area's handlers; the middleware their endpoints declare comes with the identity area. */
const ApiLive = HttpApiBuilder.api(LoreApi).pipe(
  Layer.provide([...HandlerGroups, RawRoutesLive])
)

const BannerLive = Layer.effectDiscard(
  Effect.gen(function* () {
    const settings = yield* Settings
    const url = yield* serverUrl
    const first = yield* FirstStart
    yield* Effect.logInfo("Lore is listening").pipe(Effect.annotateLogs({ url }))
    if (!settings.announce) return
    const lines = [`\nLore is ready at ${url}  (API reference: ${url}/docs)`]
    if (Option.isSome(first)) {
      lines.push(
        `First start: created the organization and the admin user ${first.value.adminEmail}.`,
        `Admin token (shown once; also saved with mode 0600 to ${first.value.tokenFile}):`,
        `  ${first.value.token}`,
        `Sign in from the CLI:`,
        `  npx lore login --server ${url} --token ${first.value.token}`
      )
    } else {
      lines.push(`Sign in with a token: npx lore login --server ${url} --token <token>`)
    }
    process.stderr.write(lines.join("\n") + "\n\n")
  })
)


/**
 * Shutdown begins here (this layer is built last, so finalized first): running parses are stopped at once, so
 * neither a request nor a job waits on a worker busy with a hostile input (SIGTERM stops Lore within 10 s).
 */
const ParseShutdownLive = Layer.scopedDiscard(Effect.flatMap(ParsePool, (pool) => Effect.addFinalizer(() => pool.stopAll))).pipe(
  // The same pool the areas use: a layer is built once per start, however many layers provide it.
  Layer.provide(ParsePool.Default)
)

/** The whole server for the given settings; its output keeps the HttpServer for callers that need the address. */
export const appLayer = <E>(settings: Layer.Layer<Settings | EmbeddingSettings, E>) =>
  Layer.provideMerge(Layer.merge(BannerLive, ParseShutdownLive), serveApi(ApiLive)).pipe(
    Layer.provideMerge(FoundationLive),
    Layer.provide(Layer.unwrapEffect(Effect.map(Settings, (s) => Logger.minimumLogLevel(LogLevel.fromLiteral(capitalize(s.logLevel)))))),
    Layer.provide(Logger.json),
    Layer.provideMerge(settings)
  )

const capitalize = (level: string): LogLevel.Literal => {
  const known = ["All", "Fatal", "Error", "Warning", "Info", "Debug", "Trace", "None"] as const
  return known.find((name) => name.toLowerCase() === level.toLowerCase()) ?? "Info"
}
