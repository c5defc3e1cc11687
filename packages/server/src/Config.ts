import { Config, ConfigError, Context, Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import { parsePublicUrl, parseTrustedProxies } from "./domain/PublicUrl"

/** A per-user token bucket: `burst` requests at once, refilled at `perMinute`; perMinute 0 turns the limit off. */
export interface RateLimitSetting {
  readonly perMinute: number
  readonly burst: number
}

/** The per-user limits Lore enforces (RateLimits.consume takes their names). */
export interface RateLimitSettings {
  readonly chat: RateLimitSetting
  readonly fileUpload: RateLimitSetting
}

/** Assistant files (private chat attachments): how large, how long they are kept, how often expired ones are purged. */
export interface AssistantFileSettings {
  readonly maxBytes: number
  readonly retentionMs: number
  readonly purgeIntervalMs: number
}

export const defaultRateLimits: RateLimitSettings = {
  chat: { perMinute: 20, burst: 10 },
  fileUpload: { perMinute: 10, burst: 20 }
}

export const defaultAssistantFiles: AssistantFileSettings = {
  maxBytes: 25 * 1024 * 1024,
  retentionMs: 7 * 24 * 60 * 60 * 1000,
  purgeIntervalMs: 15 * 60 * 1000
}

/** The job workers of each process: how many run at once, and how long a claimed job's lease lasts. */
export interface JobSettings {
  readonly workers: number
  readonly leaseMs: number
}

/**
 * Four workers: a crawl holds its worker for the whole crawl while the documents it yields are ingested by
 * other jobs, so two crawls on two workers would starve ingestion.
 */
/** The assistant's tool loop: after any limit, one last step runs without tools and answers. */
export interface AssistantLoopSettings {
  /** Model steps with tools, at most (LORE_ASSISTANT_MAX_STEPS, 5); the answering step comes after them. */
  readonly maxSteps: number
  /** Input and output tokens the steps may spend before the answering step (LORE_ASSISTANT_TOKEN_BUDGET, 60000). */
  readonly tokenBudget: number
  /** Time from the first step after which no further tool step starts (LORE_ASSISTANT_TIME_LIMIT, "60 seconds"). */
  readonly timeLimitMs: number
  /** One tool call's time, after which it is a TOOL_TIMEOUT tool error (LORE_ASSISTANT_TOOL_TIMEOUT, "10 seconds"). */
  readonly toolTimeoutMs: number
}

export const defaultAssistantLoop: AssistantLoopSettings = { maxSteps: 5, tokenBudget: 60_000, timeLimitMs: 60_000, toolTimeoutMs: 10_000 }

export const defaultJobs: JobSettings = { workers: 4, leaseMs: 30_000 }

/**
 * How knowledge search ranks at scale (docs/decisions.md, "Search at scale: early termination"): queries whose
 * terms have at most `exhaustiveMaxPostings` postings are scored whole; past that, `prunedDepth` postings per
 * query term are read (shared out by the terms' weights, each term's best first) and `prunedCandidates`
 * chunks scored exactly.
 */
export interface SearchSettings {
  readonly exhaustiveMaxPostings: number
  readonly prunedDepth: number
  readonly prunedCandidates: number
  /** Postings per packed block (search_blocks): early termination reads whole blocks. At most 384 (a block fits a page). */
  readonly blockPostings: number
}

/**
 * Measured in bench/search.ts on 2 cores (docs/benchmarks.md, "Early termination"): exhaustive scoring of
 * 30k postings takes about what early termination does (~20 ms); 2048 postings a term and 500 candidates keep
 * search p95 under 50 ms on PostgreSQL at 100k and 1M chunks, returning 0.86 (100k) and 0.66 (1M) of
 * exhaustive BM25's top 10 on the bench's flat synthetic questions.
 */
export const defaultSearch: SearchSettings = { exhaustiveMaxPostings: 30_000, prunedDepth: 2048, prunedCandidates: 500, blockPostings: 256 }

/** Connectors: how often each process looks for connections whose scheduled crawl is due. */
export interface ConnectorSettings {
  readonly scheduleCheckMs: number
  /** Pages one crawl job applies before it hands the rest to the next run of the same job, at once (default 1000). */
  readonly pagesPerRun?: number | undefined
}

export const defaultConnectors: ConnectorSettings = { scheduleCheckMs: 30_000 }

/** Limits of one skill package (zip upload or repository folder). */
export interface SkillLimits {
  /** Files in one package (directories not counted). */
  readonly maxFiles: number
  /** Bytes of all files, unpacked. */
  readonly maxUnpackedBytes: number
  /** Bytes of one file, unpacked. */
  readonly maxFileBytes: number
  /** Characters of a path inside the package. */
  readonly maxPathLength: number
}

export const defaultSkillLimits: SkillLimits = {
  maxFiles: 500,
  maxUnpackedBytes: 32 * 1024 * 1024,
  maxFileBytes: 20 * 1024 * 1024,
  maxPathLength: 255
}

/** Parsing of caller input (documents, skill packages) in worker threads (parsing-pool/ParsePool.ts). */
export interface ParseSettings {
  /** Worker threads; a parse waits for a free one. */
  readonly workers: number
  /** A parse that takes longer is stopped (its worker terminated): PARSE_TIMEOUT for a skill, TIMEOUT for a document. */
  readonly timeoutMs: number
}

export const defaultParsing: ParseSettings = { workers: 2, timeoutMs: 30_000 }

/** Which git repositories skill imports may fetch. */
export interface RepositorySettings {
  /** `host[:port]` entries; `*` admits any host. */
  readonly allowedHosts: ReadonlyArray<string>
  /** Whether `file://` repositories may be read (a path on the server's own disk). */
  readonly allowFile: boolean
  /** A fetch that takes longer is stopped. */
  readonly fetchTimeoutMs: number
}

export const defaultRepositories: RepositorySettings = {
  allowedHosts: ["github.com", "gitlab.com", "bitbucket.org", "codeberg.org"],
  allowFile: false,
  fetchTimeoutMs: 120_000
}

/** What WEB connections may fetch, and how patiently. */
export interface WebCrawlSettings {
  /** Whether crawls may reach loopback, private, link-local and other non-public addresses (off: the SSRF guard). */
  readonly allowPrivateAddresses: boolean
  /** One request (connect to last byte) that takes longer is abandoned. */
  readonly fetchTimeoutMs: number
  /** The longest robots.txt Crawl-delay honoured between two requests; a longer one is capped to this. */
  readonly maxCrawlDelayMs: number
}

export const defaultWebCrawl: WebCrawlSettings = {
  allowPrivateAddresses: false,
  fetchTimeoutMs: 30_000,
  maxCrawlDelayMs: 10_000
}

const rateLimitFromEnv = (name: string, fallback: RateLimitSetting) =>
  Config.all({
    perMinute: Config.number(`LORE_RATE_LIMIT_${name}_PER_MINUTE`).pipe(Config.withDefault(fallback.perMinute)),
    burst: Config.integer(`LORE_RATE_LIMIT_${name}_BURST`).pipe(Config.withDefault(fallback.burst))
  })

const millis = (name: string, fallback: number) =>
  Config.duration(name).pipe(Config.map(Duration.toMillis), Config.withDefault(fallback))

/** PostgreSQL pool connections when LORE_DATABASE_POOL_SIZE is not set. */
export const DEFAULT_DATABASE_POOL_SIZE = 10

/** Every setting Lore reads, resolved once at start (env LORE_*, DATABASE_URL). */
export interface LoreSettings {
  readonly host: string
  readonly port: number
  /** PostgreSQL connection string; when absent Lore embeds PGlite in `dataDir`. */
  readonly databaseUrl: Option.Option<Redacted.Redacted>
  /**
   * LORE_DATABASE_POOL_SIZE: connections in the PostgreSQL pool (default 10, from 1 to 1000). Embedded PGlite
   * always has one (a larger pool loses writes). Optional here so settings made in code keep the default.
   */
  readonly databasePoolSize?: number | undefined
  readonly dataDir: string
  /** 32-byte key (hex or base64) for encrypting secrets at rest; generated into the data dir when unset. */
  readonly secretKey: Option.Option<Redacted.Redacted>
  readonly adminEmail: string
  readonly bootstrapToken: Option.Option<Redacted.Redacted>
  readonly maxUploadBytes: number
  /** Largest JSON request body accepted. */
  readonly maxJsonBytes: number
  /** A request body that stops arriving for this long is answered 400 and its connection closed. */
  readonly bodyStallMs: number
  /** Whether session cookies carry the Secure flag (off for plain-http development). */
  readonly secureCookies: boolean
  readonly logLevel: string
  /** Print the bootstrap banner on first start (off in tests). */
  readonly announce: boolean
  /** LORE_RATE_LIMIT_{CHAT,FILE_UPLOAD}_{PER_MINUTE,BURST} */
  readonly rateLimits: RateLimitSettings
  /** LORE_ASSISTANT_FILE_MAX_BYTES, LORE_ASSISTANT_FILE_RETENTION ("7 days"), LORE_ASSISTANT_FILE_PURGE_INTERVAL ("15 minutes") */
  readonly assistantFiles: AssistantFileSettings
  /** LORE_ASSISTANT_MAX_STEPS (5), LORE_ASSISTANT_TOKEN_BUDGET (60000), LORE_ASSISTANT_TIME_LIMIT ("60 seconds"), LORE_ASSISTANT_TOOL_TIMEOUT ("10 seconds") */
  readonly assistantLoop: AssistantLoopSettings
  /** LORE_SKILL_MAX_FILES, LORE_SKILL_MAX_BYTES (unpacked), LORE_SKILL_MAX_FILE_BYTES, LORE_SKILL_MAX_PATH_LENGTH */
  readonly skillLimits: SkillLimits
  /** LORE_PARSE_WORKERS (2), LORE_PARSE_TIMEOUT ("30 seconds") */
  readonly parsing: ParseSettings
  /** LORE_REPO_ALLOWED_HOSTS (comma-separated host[:port], `*` for any), LORE_REPO_ALLOW_FILE=1, LORE_REPO_FETCH_TIMEOUT ("2 minutes") */
  readonly repositories: RepositorySettings
  /** LORE_JOB_WORKERS (4), LORE_JOB_LEASE ("30 seconds": a killed worker's job is taken over after this) */
  readonly jobs: JobSettings
  /** LORE_SEARCH_EXHAUSTIVE_MAX_POSTINGS (30000), LORE_SEARCH_PRUNED_DEPTH (2048), LORE_SEARCH_PRUNED_CANDIDATES (500) */
  readonly search: SearchSettings
  /** LORE_CONNECTOR_SCHEDULE_CHECK ("30 seconds"): how often scheduled crawls are looked for */
  readonly connectors: ConnectorSettings
  /** LORE_SSO_ALLOW_HTTP_ISSUER: accept an http:// OpenID issuer (tests and local development only). */
  readonly ssoAllowHttpIssuer: boolean
  /** LORE_WEB_ALLOW_PRIVATE_ADDRESSES=1, LORE_WEB_FETCH_TIMEOUT ("30 seconds"), LORE_WEB_MAX_CRAWL_DELAY ("10 seconds") */
  readonly webCrawl: WebCrawlSettings
  /** LORE_PUBLIC_URL: this server's origin for absolute URLs (SCIM locations, SSO redirect URIs); domain/PublicUrl.ts. */
  readonly publicUrl: Option.Option<string>
  /** LORE_TRUSTED_PROXIES: peers (IPs, CIDRs) whose X-Forwarded-Host/-Proto count; empty: none do. */
  readonly trustedProxies: ReadonlyArray<string>
  /**
   * LORE_ALLOWED_PRIVATE_HOSTS (comma-separated `host[:port]`, default none): the loopback/private hosts that
   * outbound fetches made on a caller's behalf may reach (outbound/Guard.ts); every other private address is refused.
   */
  readonly allowedPrivateHosts: ReadonlyArray<string>
  /**
   * LORE_CONNECTOR_BASE_URLS (comma-separated `name=url`, default none): replaces a connector vendor's fixed host, for
   * tests and sovereign clouds (connectors/BaseUrls.ts lists the names). The outbound guard still applies to them.
   */
  readonly connectorBaseUrls: Readonly<Record<string, string>>
}

/** LORE_PUBLIC_URL, refused at start unless it is an http(s) origin. */
const publicUrlFromEnv = Config.string("LORE_PUBLIC_URL").pipe(
  Config.mapOrFail((value) => {
    if (value.trim() === "") return Either.right(Option.none<string>())
    const parsed = parsePublicUrl(value)
    return "origin" in parsed ? Either.right(Option.some(parsed.origin)) : Either.left(ConfigError.InvalidData([], parsed.error))
  }),
  Config.withDefault(Option.none<string>())
)

/** LORE_TRUSTED_PROXIES, refused at start unless every entry is an IP address or CIDR range. */
/** The names LORE_CONNECTOR_BASE_URLS may replace (issues 30 and 31); each value an http(s) URL without query. */
export const CONNECTOR_BASE_URL_NAMES = ["graph", "login", "sharepoint-my", "google-drive", "google-admin", "google-token", "slack", "github", "github-graphql"] as const

export const parseConnectorBaseUrls = (value: string): { readonly urls: Record<string, string> } | { readonly error: string } => {
  const urls: Record<string, string> = Object.create(null)
  for (const entry of value.split(",").map((part) => part.trim()).filter((part) => part.length > 0)) {
    const equals = entry.indexOf("=")
    const name = equals > 0 ? entry.slice(0, equals).trim().toLowerCase() : ""
    if (!(CONNECTOR_BASE_URL_NAMES as ReadonlyArray<string>).includes(name)) {
      return { error: `LORE_CONNECTOR_BASE_URLS: each entry is name=url with a name among ${CONNECTOR_BASE_URL_NAMES.join(", ")}` }
    }
    let url: URL
    try {
      url = new URL(entry.slice(equals + 1).trim())
    } catch {
      return { error: `LORE_CONNECTOR_BASE_URLS: ${name} is not a URL` }
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password || url.search || url.hash) {
      return { error: `LORE_CONNECTOR_BASE_URLS: ${name} must be an http(s) URL without credentials, query or fragment` }
    }
    urls[name] = url.href.replace(/\/+$/, "")
  }
  return { urls }
}

const connectorBaseUrlsFromEnv = Config.string("LORE_CONNECTOR_BASE_URLS").pipe(
  Config.mapOrFail((value) => {
    const parsed = parseConnectorBaseUrls(value)
    return "urls" in parsed ? Either.right<Readonly<Record<string, string>>>(parsed.urls) : Either.left(ConfigError.InvalidData([], parsed.error))
  }),
  Config.withDefault<Readonly<Record<string, string>>>({})
)

const trustedProxiesFromEnv = Config.string("LORE_TRUSTED_PROXIES").pipe(
  Config.mapOrFail((value) => {
    const parsed = parseTrustedProxies(value)
    return "proxies" in parsed ? Either.right(parsed.proxies) : Either.left(ConfigError.InvalidData([], parsed.error))
  }),
  Config.withDefault<ReadonlyArray<string>>([])
)

export class Settings extends Context.Tag("lore/Settings")<Settings, LoreSettings>() {
  /** Every setting from the environment (LORE_*, DATABASE_URL). */
  static readonly load = Effect.gen(function* () {
      const databaseUrl = yield* Config.redacted("DATABASE_URL").pipe(
        Config.orElse(() => Config.redacted("LORE_DATABASE_URL")),
        Config.option
      )
      return {
        host: yield* Config.string("LORE_HOST").pipe(Config.withDefault("127.0.0.1")),
        port: yield* Config.port("LORE_PORT").pipe(Config.withDefault(8787)),
        databaseUrl: Option.filter(databaseUrl, (url) => Redacted.value(url).length > 0),
        databasePoolSize: yield* Config.integer("LORE_DATABASE_POOL_SIZE").pipe(
          Config.validate({ message: "must be from 1 to 1000", validation: (n) => n >= 1 && n <= 1000 }),
          Config.withDefault(DEFAULT_DATABASE_POOL_SIZE)
        ),
        dataDir: yield* Config.string("LORE_DATA_DIR").pipe(Config.withDefault("./.lore")),
        secretKey: yield* Config.option(Config.redacted("LORE_SECRET_KEY")),
        adminEmail: yield* Config.string("LORE_ADMIN_EMAIL").pipe(Config.withDefault("admin@lore.local")),
        bootstrapToken: yield* Config.option(Config.redacted("LORE_BOOTSTRAP_TOKEN")),
        maxUploadBytes: yield* Config.integer("LORE_MAX_UPLOAD_BYTES").pipe(Config.withDefault(50 * 1024 * 1024)),
        maxJsonBytes: yield* Config.integer("LORE_MAX_JSON_BYTES").pipe(Config.withDefault(1024 * 1024)),
        bodyStallMs: yield* Config.integer("LORE_BODY_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
        secureCookies: yield* Config.boolean("LORE_SECURE_COOKIES").pipe(Config.withDefault(false)),
        logLevel: yield* Config.string("LORE_LOG_LEVEL").pipe(Config.withDefault("info")),
        announce: true,
        rateLimits: {
          chat: yield* rateLimitFromEnv("CHAT", defaultRateLimits.chat),
          fileUpload: yield* rateLimitFromEnv("FILE_UPLOAD", defaultRateLimits.fileUpload)
        },
        assistantFiles: {
          maxBytes: yield* Config.integer("LORE_ASSISTANT_FILE_MAX_BYTES").pipe(Config.withDefault(defaultAssistantFiles.maxBytes)),
          retentionMs: yield* millis("LORE_ASSISTANT_FILE_RETENTION", defaultAssistantFiles.retentionMs),
          purgeIntervalMs: yield* millis("LORE_ASSISTANT_FILE_PURGE_INTERVAL", defaultAssistantFiles.purgeIntervalMs)
        },
        assistantLoop: {
          maxSteps: yield* Config.integer("LORE_ASSISTANT_MAX_STEPS").pipe(Config.validate({ message: "must be from 1 to 50", validation: (n) => n >= 1 && n <= 50 }), Config.withDefault(defaultAssistantLoop.maxSteps)),
          tokenBudget: yield* Config.integer("LORE_ASSISTANT_TOKEN_BUDGET").pipe(Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }), Config.withDefault(defaultAssistantLoop.tokenBudget)),
          timeLimitMs: yield* millis("LORE_ASSISTANT_TIME_LIMIT", defaultAssistantLoop.timeLimitMs),
          toolTimeoutMs: yield* millis("LORE_ASSISTANT_TOOL_TIMEOUT", defaultAssistantLoop.toolTimeoutMs)
        },
        skillLimits: {
          maxFiles: yield* Config.integer("LORE_SKILL_MAX_FILES").pipe(Config.withDefault(defaultSkillLimits.maxFiles)),
          maxUnpackedBytes: yield* Config.integer("LORE_SKILL_MAX_BYTES").pipe(Config.withDefault(defaultSkillLimits.maxUnpackedBytes)),
          maxFileBytes: yield* Config.integer("LORE_SKILL_MAX_FILE_BYTES").pipe(Config.withDefault(defaultSkillLimits.maxFileBytes)),
          maxPathLength: yield* Config.integer("LORE_SKILL_MAX_PATH_LENGTH").pipe(Config.withDefault(defaultSkillLimits.maxPathLength))
        },
        parsing: {
          workers: yield* Config.integer("LORE_PARSE_WORKERS").pipe(Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }), Config.withDefault(defaultParsing.workers)),
          timeoutMs: yield* millis("LORE_PARSE_TIMEOUT", defaultParsing.timeoutMs)
        },
        repositories: {
          allowedHosts: (yield* Config.string("LORE_REPO_ALLOWED_HOSTS").pipe(Config.option)).pipe(
            Option.map((hosts) => hosts.split(",").map((h) => h.trim().toLowerCase()).filter((h) => h.length > 0)),
            Option.getOrElse(() => defaultRepositories.allowedHosts)
          ),
          allowFile: (yield* Config.string("LORE_REPO_ALLOW_FILE").pipe(Config.withDefault("0"))) === "1",
          fetchTimeoutMs: yield* millis("LORE_REPO_FETCH_TIMEOUT", defaultRepositories.fetchTimeoutMs)
        },
        jobs: {
          workers: yield* Config.integer("LORE_JOB_WORKERS").pipe(Config.withDefault(defaultJobs.workers)),
          leaseMs: yield* millis("LORE_JOB_LEASE", defaultJobs.leaseMs)
        },
        search: {
          exhaustiveMaxPostings: yield* Config.integer("LORE_SEARCH_EXHAUSTIVE_MAX_POSTINGS").pipe(Config.withDefault(defaultSearch.exhaustiveMaxPostings)),
          prunedDepth: yield* Config.integer("LORE_SEARCH_PRUNED_DEPTH").pipe(Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }), Config.withDefault(defaultSearch.prunedDepth)),
          prunedCandidates: yield* Config.integer("LORE_SEARCH_PRUNED_CANDIDATES").pipe(Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }), Config.withDefault(defaultSearch.prunedCandidates)),
          blockPostings: yield* Config.integer("LORE_SEARCH_BLOCK_POSTINGS").pipe(Config.validate({ message: "must be from 1 to 384", validation: (n) => n >= 1 && n <= 384 }), Config.withDefault(defaultSearch.blockPostings))
        },
        connectors: {
          scheduleCheckMs: yield* millis("LORE_CONNECTOR_SCHEDULE_CHECK", defaultConnectors.scheduleCheckMs),
          pagesPerRun: yield* Config.integer("LORE_CONNECTOR_PAGES_PER_RUN").pipe(Config.validate({ message: "must be at least 1", validation: (n) => n >= 1 }), Config.withDefault(1000))
        },
        ssoAllowHttpIssuer: yield* Config.boolean("LORE_SSO_ALLOW_HTTP_ISSUER").pipe(Config.withDefault(false)),
        webCrawl: {
          allowPrivateAddresses: (yield* Config.string("LORE_WEB_ALLOW_PRIVATE_ADDRESSES").pipe(Config.withDefault("0"))) === "1",
          fetchTimeoutMs: yield* millis("LORE_WEB_FETCH_TIMEOUT", defaultWebCrawl.fetchTimeoutMs),
          maxCrawlDelayMs: yield* millis("LORE_WEB_MAX_CRAWL_DELAY", defaultWebCrawl.maxCrawlDelayMs)
        },
        publicUrl: yield* publicUrlFromEnv,
        trustedProxies: yield* trustedProxiesFromEnv,
        allowedPrivateHosts: (yield* Config.string("LORE_ALLOWED_PRIVATE_HOSTS").pipe(Config.withDefault("")))
          .split(",").map((entry) => entry.trim().toLowerCase()).filter((entry) => entry.length > 0),
        connectorBaseUrls: yield* connectorBaseUrlsFromEnv
      } satisfies LoreSettings
    })

  static readonly fromEnv = Layer.effect(Settings, Settings.load)

  /** Settings for an in-process server (tests, `lore serve`), defaults filled in. */
  static readonly make = (overrides: Partial<LoreSettings> & { readonly dataDir: string }): LoreSettings => ({
    host: "127.0.0.1",
    port: 0,
    databaseUrl: Option.none(),
    secretKey: Option.none(),
    adminEmail: "admin@lore.local",
    bootstrapToken: Option.none(),
    maxUploadBytes: 50 * 1024 * 1024,
    maxJsonBytes: 1024 * 1024,
    bodyStallMs: 10_000,
    secureCookies: false,
    logLevel: "info",
    announce: false,
    rateLimits: defaultRateLimits,
    assistantFiles: defaultAssistantFiles,
    assistantLoop: defaultAssistantLoop,
    skillLimits: defaultSkillLimits,
    parsing: defaultParsing,
    repositories: defaultRepositories,
    connectors: defaultConnectors,
    search: defaultSearch,
    jobs: defaultJobs,
    ssoAllowHttpIssuer: false,
    webCrawl: defaultWebCrawl,
    publicUrl: Option.none(),
    trustedProxies: [],
    allowedPrivateHosts: [],
    connectorBaseUrls: {},
    ...overrides
  })
}
