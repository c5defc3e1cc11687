import { Effect, Layer, Logger, LogLevel, Option } from "effect"
import { AccessEvaluator } from "./access/Evaluator"
import { AccessExplainer } from "./access/Explain"
import { AuthorizationGeneration } from "./access/Generation"
import { ResourceResolvers } from "./access/Resources"
import { Spaces } from "./access/Spaces"
import { SpacesRepo } from "./access/SpacesRepo"
import { AdminRepo } from "./identity/AdminRepo"
import { Administration } from "./identity/Administration"
import { Audit } from "./platform/Audit"
import { EmbeddingModel } from "./ai/EmbeddingModel"
import { EmbeddingSettings } from "./ai/EmbeddingSettings"
import { JobsLive, JobWorkers } from "./jobs/Worker"
import { IngestionLive } from "./knowledge/Ingestion"
import { KnowledgeSearch } from "./knowledge/Search"
import { SearchIndex } from "./knowledge/SearchIndex"
import { Sources } from "./knowledge/Sources"
import { SourcesRepo } from "./knowledge/SourcesRepo"
import { Settings } from "./Config"
import { MigrationsLive } from "./db/Migrations"
import { SqlLive } from "./db/Sql"
import { HttpLive, serverUrl } from "./http/Http"
import { Authenticator } from "./identity/Authenticator"
import { BootstrapLive, FirstStart } from "./identity/Bootstrap"
import { IdentityRepo } from "./identity/Repo"
import { Sessions } from "./identity/Sessions"
import { Tokens } from "./identity/Tokens"
import { SecretBox } from "./platform/SecretBox"

/** Business services, over the database. */
const ServicesLive = Layer.mergeAll(IngestionLive, JobWorkers.Default).pipe(
  Layer.provideMerge(Layer.mergeAll(Administration.Default, Spaces.Default, AccessExplainer.Default, Sources.Default, KnowledgeSearch.Default)),
  Layer.provideMerge(Layer.mergeAll(Sessions.Default, Tokens.Default, AccessEvaluator.Default, ResourceResolvers.Default, SearchIndex.Default, SourcesRepo.Default)),
  Layer.provideMerge(Authenticator.Default),
  Layer.provideMerge(
    Layer.mergeAll(IdentityRepo.Default, AdminRepo.Default, SpacesRepo.Default, SecretBox.Default, Audit.Default, AuthorizationGeneration.Default, JobsLive, EmbeddingModel.Default)
  )
)

/** Database, then migrations, then services and first-start bootstrap. */
const FoundationLive = Layer.provideMerge(BootstrapLive, ServicesLive).pipe(
  Layer.provideMerge(MigrationsLive),
  Layer.provideMerge(SqlLive)
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

/** The whole server for the given settings; its output keeps the HttpServer for callers that need the address. */
export const appLayer = <E>(settings: Layer.Layer<Settings | EmbeddingSettings, E>) =>
  Layer.provideMerge(BannerLive, HttpLive).pipe(
    Layer.provideMerge(FoundationLive),
    Layer.provide(Layer.unwrapEffect(Effect.map(Settings, (s) => Logger.minimumLogLevel(LogLevel.fromLiteral(capitalize(s.logLevel)))))),
    Layer.provide(Logger.json),
    Layer.provideMerge(settings)
  )

const capitalize = (level: string): LogLevel.Literal => {
  const known = ["All", "Fatal", "Error", "Warning", "Info", "Debug", "Trace", "None"] as const
  return known.find((name) => name.toLowerCase() === level.toLowerCase()) ?? "Info"
}
