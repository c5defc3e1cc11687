/**
 * Lore's own SQL services (AccessEvaluator, SearchIndexReader and SearchIndexWriter, SourcesRepo, KnowledgeSearch, IdentityRepo) in the
 * bench process, over a database Lore created, for bench/search.ts:
 *
 * - `capture` runs a search through KnowledgeSearch.search and records every statement it sends, as the
 *   driver receives it (SQL text + parameters, from @effect/sql's statement transformer), so the bare
 *   query replayed with `pg` is exactly Lore's, with the same access-predicate parameters.
 * - `ingestDirect` is Lore's ingestion without HTTP and the job queue: the real parser and chunker, then
 *   SourcesRepo + SearchIndexWriter.replaceChunks/makeSearchable (the same SQL) in one transaction per document.
 *
 * Embedded PGlite takes one connection, so `openEmbedded` serves a data dir the way Lore's db/Sql.ts does
 * (PGlite + pgvector, PGLiteSocketServer on a unix socket, one connection) and these services and `pg`
 * take turns on it.
 */
import { PGlite } from "@electric-sql/pglite"
import { vector } from "@electric-sql/pglite-pgvector"
import { PGLiteSocketServer } from "@electric-sql/pglite-socket"
import { SqlClient, Statement } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Logger, LogLevel, ManagedRuntime, Option, Redacted, String as Str } from "effect"
import { createHash } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import type pg from "pg"
import { AccessEvaluator } from "../../packages/server/src/access/Evaluator"
import { EmbeddingModel } from "../../packages/server/src/ai/EmbeddingModel"
import { EmbeddingSettings } from "../../packages/server/src/ai/EmbeddingSettings"
import { DatabaseNotifications } from "../../packages/server/src/db/Notifications"
import { Database, transactional } from "../../packages/server/src/db/Sql"
import { CurrentRequestId } from "../../packages/server/src/domain/RequestId"
import { defaultSearch, Settings } from "../../packages/server/src/Config"
import { JobsLive } from "../../packages/server/src/jobs/Worker"
import { toPrincipal } from "../../packages/server/src/identity/Authenticator"
import { IdentityRepo } from "../../packages/server/src/identity/Repo"
import { chunkDocument, parseDocument } from "../../packages/server/src/knowledge/parsing/index"
import { toIndexedChunks } from "../../packages/server/src/knowledge/Ingestion"
import { KnowledgeSearch } from "../../packages/server/src/knowledge/Search"
import { SearchIndexReader } from "../../packages/server/src/knowledge/SearchIndexReader"
import { SearchIndexWriter } from "../../packages/server/src/knowledge/SearchIndexWriter"
import { MAINTENANCE_BUDGET_POSTINGS } from "../../packages/server/src/knowledge/Ingestion"
import { SourcesRepo } from "../../packages/server/src/knowledge/SourcesRepo"
import { hashSecret } from "../../packages/server/src/platform/SecretBox"

/** Where a database is: a `pg` connection config, and the same for @effect/sql-pg. */
export interface Target {
  readonly kind: "embedded" | "postgresql"
  readonly pg: pg.ClientConfig
  readonly close: () => Promise<void>
}

export const postgresTarget = (url: string): Target => ({ kind: "postgresql", pg: { connectionString: url }, close: async () => {} })

/** Lore's embedded wiring (db/Sql.ts) on `<dataDir>/pgdata`, for one client at a time. */
export const openEmbedded = async (dataDir: string): Promise<Target> => {
  const db = await PGlite.create({ dataDir: resolve(dataDir, "pgdata"), extensions: { vector } })
  const socketDir = mkdtempSync(join(tmpdir(), "lore-bench-"))
  const socket = new PGLiteSocketServer({ db, path: join(socketDir, ".s.PGSQL.5432"), maxConnections: 1 })
  await socket.start()
  return {
    kind: "embedded",
    pg: { host: socketDir, port: 5432, database: "postgres", user: "postgres" },
    close: async () => {
      await socket.stop()
      await db.close()
      rmSync(socketDir, { recursive: true, force: true })
    }
  }
}

export interface CapturedStatement {
  readonly text: string
  readonly params: ReadonlyArray<unknown>
}

export interface CapturedSearch {
  /** The last BM25 statement that parsed the question (early termination's, or the whole scoring's). */
  readonly lexical: CapturedStatement
  /**
   * Every BM25 statement the search sent, in order: a size check that scores small queries whole, then early
   * termination (over blocks: their reading, then the candidates read for scoring in the process).
   */
  readonly ranking: ReadonlyArray<CapturedStatement>
  /** The chunks the search returned, best first (its lexical ranking: no embedding model here). */
  readonly top: ReadonlyArray<string>
  /** Everything the request sends, in order: token lookup, access scope, lexical, details. */
  readonly all: ReadonlyArray<CapturedStatement>
  /** Exhaustive BM25 for the same question and caller (SearchIndexReader.lexical without a cap): what early termination is compared with. */
  readonly exhaustive: CapturedStatement
  readonly hits: number
}

export interface DirectDocument {
  readonly fileName: string
  readonly text: string
}

const services = (target: Target) => {
  const connection = target.pg
  const client = PgClient.layer({
    ...(connection.connectionString
      ? { url: Redacted.make(connection.connectionString) }
      : { host: connection.host!, port: connection.port!, database: connection.database!, username: connection.user! }),
    maxConnections: target.kind === "embedded" ? 1 : 2,
    idleTimeout: Duration.seconds(30),
    transformResultNames: Str.snakeToCamel,
    transformQueryNames: Str.camelToSnake
  })
  const database = Layer.effect(
    Database,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const vectorReady = (yield* sql`SELECT 1 FROM pg_extension WHERE extname = 'vector'`).length > 0
      const [row] = yield* sql<{ serverVersion: string }>`SHOW server_version`
      return { kind: target.kind, vector: vectorReady, serverVersion: row?.serverVersion ?? "unknown" }
    }).pipe(Effect.orDie)
  )
  return Layer.mergeAll(KnowledgeSearch.Default, IdentityRepo.Default).pipe(
    Layer.provideMerge(Layer.mergeAll(AccessEvaluator.Default, SearchIndexReader.Default, SearchIndexWriter.Default, SourcesRepo.Default, EmbeddingModel.Default)),
    // Search reads the embedding generation (none here: lexical) through the ai area, which needs the job queue and settings.
    Layer.provide(JobsLive),
    Layer.provide(Layer.succeed(Settings, Settings.make({
      dataDir: mkdtempSync(join(tmpdir(), "lore-bench-settings-")), databaseUrl: Option.none(), bootstrapToken: Option.none(), secretKey: Option.none()
    }))),
    Layer.provide(EmbeddingSettings.layer()),
    // The bench opens its own connections; the AI configuration cache then reads the database each time.
    Layer.provide(DatabaseNotifications.none),
    Layer.provideMerge(database),
    Layer.provideMerge(client),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
  )
}

const titleFromFileName = (name: string) => name.replace(/\.[A-Za-z0-9]{1,8}$/, "").replace(/[_]+/g, " ").trim() || name

/** Lore's SQL services over `target`; `close` releases their connections (the target stays open). */
export const loreSql = async (target: Target) => {
  // Embedded PGlite serves one connection: the previous client's may not be gone yet, so retry the first.
  let runtime = ManagedRuntime.make(services(target))
  for (let attempt = 1; ; attempt++) {
    try {
      await runtime.runPromise(Effect.void)
      break
    } catch (error) {
      await runtime.dispose().catch(() => {})
      if (attempt >= 40) throw error
      await new Promise((resolve) => setTimeout(resolve, 250))
      runtime = ManagedRuntime.make(services(target))
    }
  }

  const capture = (token: string, q: string): Promise<CapturedSearch> =>
    runtime.runPromise(
      Effect.gen(function* () {
        const recorded: CapturedStatement[] = []
        const record = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
          Statement.withTransformer(effect, (statement, _sql, _refs, _span) => {
            const [text, params] = statement.compile()
            recorded.push({ text, params })
            return Effect.succeed(statement)
          })
        const identity = yield* IdentityRepo
        const search = yield* KnowledgeSearch
        const row = yield* record(identity.principalByTokenHash(hashSecret(token)))
        if (!row) return yield* Effect.dieMessage("the bench token is unknown")
        const principal = toPrincipal(row, "token")
        const result = yield* record(Effect.locally(search.search(principal, { q }), CurrentRequestId, "bench"))
        // The BM25 statements: the gate, then early termination (over blocks: their reading, then the candidates' vectors).
        const ranking = recorded.filter((s) => /WITH\s+terms AS|tsvectorsend\(/.test(s.text))
        const lexical = ranking.filter((s) => /WITH\s+terms AS/.test(s.text)).at(-1)
        if (!lexical) return yield* Effect.dieMessage("the search sent no BM25 query")
        const evaluator = yield* AccessEvaluator
        const index = yield* SearchIndexReader
        const scope = yield* evaluator.readScope(principal)
        const access = { partitions: (alias: string) => evaluator.grantAndClearance(scope, alias), visible: (alias: string) => evaluator.visibleTo(scope, alias) }
        const exhaustiveRecorded: CapturedStatement[] = []
        yield* Statement.withTransformer(index.lexical(principal.organizationId, q, access, {}, 11, null), (statement) => {
          const [text, params] = statement.compile()
          exhaustiveRecorded.push({ text, params })
          return Effect.succeed(statement)
        })
        const top = result.evidence.map((hit) => hit.citationId)
        return { lexical, ranking, top, all: recorded, exhaustive: exhaustiveRecorded[0]!, hits: result.evidence.length }
      })
    )

  const ingestDirect = (owner: { organizationId: string; knowledgeSpaceId: string; userId: string }, document: DirectDocument) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const repo = yield* SourcesRepo
        const index = yield* SearchIndexWriter
        const bytes = new TextEncoder().encode(document.text)
        const parsed = yield* Effect.promise(() => parseDocument(bytes, "text/plain"))
        if (!parsed.ok) return yield* Effect.dieMessage(parsed.error.message)
        const title = titleFromFileName(document.fileName)
        const digest = createHash("sha256").update(bytes).digest("hex")
        return yield* transactional(sql)(
          Effect.gen(function* () {
            yield* repo.putBlob(digest, bytes)
            const knowledgeAssetId = yield* repo.insertAsset(owner.organizationId, owner.knowledgeSpaceId, title)
            const sourceId = yield* repo.insertSource({
              organizationId: owner.organizationId,
              knowledgeSpaceId: owner.knowledgeSpaceId,
              knowledgeAssetId,
              versionNumber: 1,
              title,
              classification: "INTERNAL",
              classificationRank: 1,
              fileName: document.fileName,
              mediaType: "text/plain",
              contentLength: bytes.byteLength,
              contentDigest: digest,
              uploadedBy: owner.userId
            })
            const chunks = chunkDocument(parsed.document, { sourceRevisionId: sourceId })
            yield* index.replaceChunks(
              { sourceId, organizationId: owner.organizationId, knowledgeSpaceId: owner.knowledgeSpaceId, knowledgeAssetId, classificationRank: 1, aclKeys: null, title },
              toIndexedChunks(chunks)
            )
            yield* repo.markReady(sourceId, { pageCount: parsed.document.pageCount, chunkCount: chunks.length, embedding: null })
            yield* repo.refreshCurrentVersion(knowledgeAssetId)
            yield* index.makeSearchable(sourceId, owner.organizationId)
            return { pages: parsed.document.pageCount, chunks: chunks.length }
          })
        )
      })
    )

  /** What Lore's packer job does after ingestion (SearchIndexWriter.packPending), or a rebuild of every block after SQL synthesis. */
  const pack = (organizationId: string, how: "pending" | "all") =>
    runtime.runPromise(
      Effect.gen(function* () {
        const index = yield* SearchIndexWriter
        if (how === "all") yield* index.repack(organizationId, defaultSearch.blockPostings, true)
        else yield* index.packPending(organizationId, defaultSearch.blockPostings)
      })
    )

  /** What Lore's block maintenance jobs do until no term is due (SearchIndexWriter.maintainBlocks, a budget a run). */
  const maintain = (organizationId: string) =>
    runtime.runPromise(
      Effect.gen(function* () {
        const index = yield* SearchIndexWriter
        let runs = 0
        for (;;) {
          const done = yield* index.maintainBlocks(organizationId, defaultSearch.blockPostings, MAINTENANCE_BUDGET_POSTINGS)
          if (done.busy) {
            yield* Effect.sleep("100 millis")
            continue
          }
          runs++
          if (done.due <= done.terms) return runs
        }
      })
    )

  return { capture, ingestDirect, pack, maintain, close: () => runtime.dispose() }
}
