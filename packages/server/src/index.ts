import { HttpServer } from "@effect/platform"
import { Statement } from "@effect/sql"
import { Context, Effect, Exit, FiberRef, FiberRefs, HashMap, Layer, Option, Redacted, Scope } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { appLayer } from "./App"
import {
  type AssistantFileSettings, type AssistantLoopSettings, defaultAssistantLoop, type ConnectorSettings, defaultAssistantFiles, defaultConnectors, defaultJobs, defaultParsing, defaultRateLimits, defaultRepositories,
  defaultSearch, defaultSkillLimits, defaultWebCrawl, type JobSettings, type LoreSettings, type ParseSettings, type RateLimitSettings, type RepositorySettings, Settings, type SkillLimits,
  type SearchSettings, type WebCrawlSettings
} from "./Config"
import { type EmbeddingEndpointOptions, EmbeddingSettings } from "./ai/EmbeddingSettings"
import { serverUrl } from "./http/Http"
import { parsePublicUrl, parseTrustedProxies } from "./domain/PublicUrl"

export { LoreApi } from "./http/Api"
export { Settings } from "./Config"

export interface StartOptions {
  readonly dataDir: string
  readonly databaseUrl?: string
  readonly port?: number
  readonly host?: string
  readonly bootstrapToken?: string
  readonly adminEmail?: string
  readonly maxUploadBytes?: number
  readonly maxJsonBytes?: number
  /** A request body that stops arriving for this long is answered 400 (default 10 s). */
  readonly bodyStallMs?: number
  readonly logLevel?: string
  readonly announce?: boolean
  readonly secretKey?: string
  readonly secureCookies?: boolean
  /** An OpenAI-compatible embedding endpoint; without one, search is lexical only. */
  readonly embedding?: EmbeddingEndpointOptions
  /** Per-user rate limits (default: Config.ts defaultRateLimits). */
  readonly rateLimits?: Partial<RateLimitSettings>
  /** Assistant files: size limit, retention, purge interval (default: Config.ts defaultAssistantFiles). */
  readonly assistantFiles?: Partial<AssistantFileSettings>
  /** Skill package limits (default: Config.ts defaultSkillLimits). */
  readonly skillLimits?: Partial<SkillLimits>
  /** Parse workers and their time limit (default: Config.ts defaultParsing: 2 workers, 30 s). */
  readonly parsing?: Partial<ParseSettings>
  /** Which repositories skill imports may fetch (default: Config.ts defaultRepositories: public code hosts, no file://). */
  readonly repositories?: Partial<RepositorySettings>
  /** Job workers per process and their lease (default: Config.ts defaultJobs). */
  readonly jobs?: Partial<JobSettings>
  /** Connectors: how often scheduled crawls are looked for (default: Config.ts defaultConnectors). */
  readonly connectors?: Partial<ConnectorSettings>
  /** Accept an http:// OpenID Connect issuer (tests against a provider on loopback). */
  readonly ssoAllowHttpIssuer?: boolean
  /** What WEB connections may fetch (default: Config.ts defaultWebCrawl: public addresses only). */
  readonly webCrawl?: Partial<WebCrawlSettings>
  /** How knowledge search ranks at scale (default: Config.ts defaultSearch). */
  readonly search?: Partial<SearchSettings>
  /** This server's public origin (LORE_PUBLIC_URL); an invalid one is refused like at start. */
  readonly publicUrl?: string
  /** Proxies whose X-Forwarded-Host/-Proto count (LORE_TRUSTED_PROXIES): IPs and CIDRs. */
  readonly trustedProxies?: ReadonlyArray<string>
  /** Loopback/private hosts outbound fetches may reach (LORE_ALLOWED_PRIVATE_HOSTS; default none). */
  readonly allowedPrivateHosts?: ReadonlyArray<string>
  /**
   * Called with every SQL statement as it is sent, and the request id of the request that runs it (tests count
   * a request's statements with it; the job workers' have none). Not for production: it costs a compile per statement.
   */
  readonly onStatement?: (statement: { readonly sql: string; readonly requestId: string | undefined }) => void
  /** LORE_DATABASE_POOL_SIZE: connections in the PostgreSQL pool (default 10). */
  readonly databasePoolSize?: number
  /** The assistant's tool loop limits (default: Config.ts defaultAssistantLoop). */
  readonly assistantLoop?: Partial<AssistantLoopSettings>
  /** LORE_CONNECTOR_BASE_URLS: vendor hosts replaced by name (`graph`, `login`, ...), for tests against loopback vendors. */
  readonly connectorBaseUrls?: Readonly<Record<string, string>>
}

const checkedPublicUrl = (value: string) => {
  const parsed = parsePublicUrl(value)
  if ("error" in parsed) throw new Error(parsed.error)
  return parsed.origin
}

const checkedProxies = (value: ReadonlyArray<string>) => {
  const parsed = parseTrustedProxies(value.join(","))
  if ("error" in parsed) throw new Error(parsed.error)
  return parsed.proxies
}

export interface RunningServer {
  readonly url: string
  /** The bootstrap admin token when this start created the organization (also in <dataDir>/bootstrap-token). */
  readonly bootstrapToken: string | undefined
  readonly stop: () => Promise<void>
}

const settingsFrom = (options: StartOptions): LoreSettings =>
  Settings.make({
    dataDir: options.dataDir,
    databaseUrl: options.databaseUrl ? Option.some(Redacted.make(options.databaseUrl)) : Option.none(),
    bootstrapToken: options.bootstrapToken ? Option.some(Redacted.make(options.bootstrapToken)) : Option.none(),
    secretKey: options.secretKey ? Option.some(Redacted.make(options.secretKey)) : Option.none(),
    ...(options.secureCookies !== undefined ? { secureCookies: options.secureCookies } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.databasePoolSize !== undefined ? { databasePoolSize: options.databasePoolSize } : {}),
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.adminEmail !== undefined ? { adminEmail: options.adminEmail } : {}),
    ...(options.maxUploadBytes !== undefined ? { maxUploadBytes: options.maxUploadBytes } : {}),
    ...(options.maxJsonBytes !== undefined ? { maxJsonBytes: options.maxJsonBytes } : {}),
    ...(options.bodyStallMs !== undefined ? { bodyStallMs: options.bodyStallMs } : {}),
    logLevel: options.logLevel ?? "warning",
    announce: options.announce ?? false,
    rateLimits: { ...defaultRateLimits, ...options.rateLimits },
    assistantFiles: { ...defaultAssistantFiles, ...options.assistantFiles },
    assistantLoop: { ...defaultAssistantLoop, ...options.assistantLoop },
    skillLimits: { ...defaultSkillLimits, ...options.skillLimits },
    parsing: { ...defaultParsing, ...options.parsing },
    repositories: { ...defaultRepositories, ...options.repositories },
    connectors: { ...defaultConnectors, ...options.connectors },
    jobs: { ...defaultJobs, ...options.jobs },
    webCrawl: { ...defaultWebCrawl, ...options.webCrawl },
    search: { ...defaultSearch, ...options.search },
    ...(options.ssoAllowHttpIssuer !== undefined ? { ssoAllowHttpIssuer: options.ssoAllowHttpIssuer } : {}),
    ...(options.publicUrl !== undefined ? { publicUrl: Option.some(checkedPublicUrl(options.publicUrl)) } : {}),
    ...(options.trustedProxies !== undefined ? { trustedProxies: checkedProxies(options.trustedProxies) } : {}),
    allowedPrivateHosts: options.allowedPrivateHosts ?? [],
    connectorBaseUrls: options.connectorBaseUrls ?? {}
  })

/** Starts a Lore server in this process (tests); resolves once it accepts requests. */
export const startServer = (options: StartOptions): Promise<RunningServer> =>
  launch(appLayer(Layer.mergeAll(
    Layer.succeed(Settings, settingsFrom(options)),
    EmbeddingSettings.layer(options.embedding),
    options.onStatement ? statementListener(options.onStatement) : Layer.empty
  )), options.dataDir)

/** Every statement with its request's id (the log annotation the request middleware sets), to `listen`. */
const statementListener = (listen: NonNullable<StartOptions["onStatement"]>) =>
  Statement.setTransformer((statement, _sql, fiberRefs) => {
    const annotations = FiberRefs.getOrDefault(fiberRefs, FiberRef.currentLogAnnotations)
    const requestId = Option.getOrUndefined(HashMap.get(annotations, "requestId"))
    listen({ sql: statement.compile()[0], requestId: typeof requestId === "string" ? requestId : undefined })
    return Effect.succeed(statement)
  })

/**
 * Starts a server configured like `npm start` (LORE_*, DATABASE_URL, LORE_EMBEDDING_*), with a few
 * overrides from the command line (`lore serve`).
 */
export const startServerFromEnv = (overrides: { readonly host?: string; readonly port?: number; readonly dataDir?: string } = {}) =>
  Effect.runPromise(Settings.load).then((loaded) => {
    const settings: LoreSettings = { ...loaded, ...overrides }
    return launch(appLayer(Layer.merge(Layer.succeed(Settings, settings), EmbeddingSettings.fromEnv)), settings.dataDir)
  })

const launch = async <E>(layer: Layer.Layer<any, E>, dataDir: string): Promise<RunningServer> => {
  const scope = Effect.runSync(Scope.make())
  try {
    // The scope first in the root context, as Layer.launch (main.ts) has it: every context built below keeps it
    // first, and Effect.scoped compares the context it replaces entry by entry up to the scope's place (issue 33
    // point 16; docs/benchmarks.md "me").
    const context = await Effect.runPromise(Layer.buildWithScope(layer, scope).pipe(Effect.provideService(Scope.Scope, scope)))
    const url = Effect.runSync(Effect.provide(serverUrl, Context.pick(HttpServer.HttpServer)(context)))
    let bootstrapToken: string | undefined
    try {
      bootstrapToken = readFileSync(join(dataDir, "bootstrap-token"), "utf8").trim()
    } catch {
      bootstrapToken = undefined
    }
    return { url, bootstrapToken, stop: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
  } catch (error) {
    await Effect.runPromise(Scope.close(scope, Exit.void))
    throw error
  }
}
