import { SqlClient } from "@effect/sql"
import { Context, Effect, Exit, Layer, ManagedRuntime, Option, Scope } from "effect"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessEvaluator } from "../../src/access/Evaluator"
import { EmbeddingModel } from "../../src/ai/EmbeddingModel"
import { EmbeddingSettings } from "../../src/ai/EmbeddingSettings"
import { Settings } from "../../src/Config"
import type { Principal } from "../../src/domain/Principal"
import { JobHandlers, type JobContext } from "../../src/jobs/JobHandlers"
import { JobQueue } from "../../src/jobs/JobQueue"
import { type ClaimedJob, JobFailure, type JobStatus } from "../../src/jobs/Model"
import { JobWorkers } from "../../src/jobs/Worker"
import { Embeddings } from "../../src/ai/Embeddings"
import { EmbeddingIndex } from "../../src/knowledge/EmbeddingIndex"
import { EmbeddingIndexRepo } from "../../src/knowledge/EmbeddingIndexRepo"
import { IngestionLive } from "../../src/knowledge/Ingestion"
import { IngestSource } from "../../src/knowledge/Jobs"
import { KnowledgeSearch } from "../../src/knowledge/Search"
import { CatalogRepo } from "../../src/knowledge/CatalogRepo"
import { SearchIndexReader } from "../../src/knowledge/SearchIndexReader"
import { SearchIndexWriter } from "../../src/knowledge/SearchIndexWriter"
import { Sources } from "../../src/knowledge/Sources"
import { ParsePool } from "../../src/parsing-pool/ParsePool"
import { SourcesRepo } from "../../src/knowledge/SourcesRepo"
import { Audit } from "../../src/platform/Audit"
import { createTestDatabase, eventually, processLayer, type TestDatabase } from "../jobs/support"
import { filler } from "./support"

/**
 * Queue level: an ingestion job whose worker dies mid-job (it claimed the job with a short lease and
 * never finished) is taken over after the lease expires and finishes once: the source is READY with
 * exactly one set of chunks. A worker that comes back after its lease was taken over cannot write, and
 * a worker that did the work but died before recording it leaves nothing duplicated.
 */

/** One "server process" without HTTP: the database, the queue and the knowledge services with their handlers. */
const knowledgeProcess = (settings: TestDatabase["settings"]) =>
  IngestionLive.pipe(
    Layer.provideMerge(Layer.mergeAll(Sources.Default, KnowledgeSearch.Default, EmbeddingIndex.Default)),
    Layer.provideMerge(Layer.mergeAll(SourcesRepo.Default, SearchIndexReader.Default, SearchIndexWriter.Default, CatalogRepo.Default, AccessEvaluator.Default, Audit.Default, EmbeddingModel.Default, EmbeddingIndexRepo.Default, Embeddings.Default, ParsePool.Default)),
    Layer.provideMerge(processLayer(settings)),
    Layer.provide(EmbeddingSettings.layer()),
    Layer.provideMerge(Layer.succeed(Settings, settings))
  )

type Runtime = ManagedRuntime.ManagedRuntime<Layer.Layer.Success<ReturnType<typeof knowledgeProcess>>, unknown>

/** Three sections of ~140 words, each naming the ferry: several chunks, all found by one query. */
const handbook = (tag: string) =>
  ["Boarding", "Luggage", "Cabins"]
    .map((section, i) => `## ${section}\n\nThe ${tag} ferry rule number ${i + 1} concerns ${section.toLowerCase()}. ${filler(`${tag} ${section.toLowerCase()}`, 10)}`)
    .join("\n\n")

describe("ingestion jobs survive killed workers (lease expiry)", { timeout: 120_000 }, () => {
  let database: TestDatabase
  let runtime: Runtime
  let principal: Principal
  let spaceId: string
  const files = mkdtempSync(join(tmpdir(), "lore-lease-"))

  const run = <A, E>(effect: Effect.Effect<A, E, any>): Promise<A> => runtime.runPromise(effect as Effect.Effect<A, E, never>)

  const upload = async (name: string, text: string) => {
    const path = join(files, name)
    writeFileSync(path, text)
    return run(Effect.flatMap(Sources, (sources) => sources.upload(principal, { knowledgeSpaceId: spaceId, classification: "INTERNAL" }, { path, name, contentType: "text/markdown" })))
  }

  const jobFor = (sourceId: string) =>
    run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const rows = yield* sql<{ id: string }>`SELECT id FROM jobs WHERE kind = ${IngestSource.kind} AND payload->>'sourceId' = ${sourceId}`
        expect(rows).toHaveLength(1)
        return rows[0]!.id
      })
    )

  const claim = (workerId: string, leaseMs: number) =>
    run(Effect.flatMap(JobQueue, (queue) => queue.claim(workerId, [IngestSource.kind], leaseMs))).then((claimed) => Option.getOrThrow(claimed))

  const contextOf = ({ job, lease }: ClaimedJob) =>
    run(
      Effect.map(JobQueue, (queue): JobContext => ({
        job,
        lease,
        workerId: lease.workerId,
        fence: Effect.flatMap(queue.holdsLease(lease), (held) => (held ? Effect.void : Effect.fail(JobFailure.retryable("LEASE_LOST", "lease lost"))))
      }))
    )

  /** Runs the registered ingestion handler as the holder of `claimed` would. */
  const runHandler = async (claimed: ClaimedJob) => {
    const context = await contextOf(claimed)
    return run(
      Effect.flatMap(JobHandlers, (handlers) => Effect.exit(Option.getOrThrow(handlers.get(IngestSource.kind))(claimed.job.payload, context)))
    )
  }

  const leaseExpired = (jobId: string) =>
    run(
      eventually(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ expired: boolean }>`SELECT lease_expires_at < now() AS expired FROM jobs WHERE id = ${jobId}`),
        (rows) => rows[0]?.expired === true
      )
    )

  const chunkRows = (sourceId: string) =>
    run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ rows: number; distinctIds: number; distinctOrdinals: number; searchable: number }>`
          SELECT count(*)::int AS rows, count(DISTINCT id)::int AS distinct_ids, count(DISTINCT ordinal)::int AS distinct_ordinals,
                 count(*) FILTER (WHERE searchable)::int AS searchable
          FROM chunks WHERE source_id = ${sourceId}`
      )
    ).then((rows) => rows[0]!)

  const source = (sourceId: string) => run(Effect.flatMap(SourcesRepo, (repo) => repo.load(sourceId))).then((row) => row!)

  const searchFor = (q: string) => run(Effect.flatMap(KnowledgeSearch, (knowledge) => knowledge.search(principal, { q, limit: 50 })))

  /** BM25 statistics count every searchable chunk exactly once. */
  const expectStatisticsExact = async () => {
    const [stats] = await run(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ stored: number; actual: number; storedTokens: number; actualTokens: number }>`
          SELECT (SELECT coalesce(sum(chunk_count), 0) FROM search_corpus)::int AS stored,
                 (SELECT count(*) FROM chunks WHERE searchable)::int AS actual,
                 (SELECT coalesce(sum(token_total), 0) FROM search_corpus)::int AS stored_tokens,
                 (SELECT coalesce(sum(token_count), 0) FROM chunks WHERE searchable)::int AS actual_tokens`
      )
    )
    expect(stats!.stored).toBe(stats!.actual)
    expect(stats!.storedTokens).toBe(stats!.actualTokens)
  }

  /** Exactly one set of chunks, all searchable, each passage answered once. */
  const expectIngestedOnce = async (sourceId: string, tag: string) => {
    const row = await source(sourceId)
    expect(row.status).toBe("READY")
    expect(row.chunkCount).toBeGreaterThanOrEqual(3)
    const chunks = await chunkRows(sourceId)
    expect(chunks).toEqual({ rows: row.chunkCount, distinctIds: row.chunkCount, distinctOrdinals: row.chunkCount, searchable: row.chunkCount })
    const result = await searchFor(`${tag} ferry rule`)
    const mine = result.evidence.filter((e) => e.knowledgeAssetVersionId === sourceId)
    expect(mine).toHaveLength(row.chunkCount!)
    expect(new Set(mine.map((e) => e.citationId)).size).toBe(row.chunkCount)
    expect(new Set(mine.map((e) => e.content)).size).toBe(row.chunkCount)
    await expectStatisticsExact()
  }

  const jobState = (jobId: string) =>
    run(
      Effect.gen(function* () {
        const queue = yield* JobQueue
        const job = Option.getOrThrow(yield* queue.get(jobId))
        const attempts = yield* queue.attempts(jobId)
        return { status: job.status as JobStatus, attempts: attempts.map((a) => ({ outcome: a.outcome, workerId: a.workerId })) }
      })
    )

  const withWorkers = async <A>(body: () => Promise<A>): Promise<A> => {
    const scope = await run(Scope.make())
    const context = await run(Layer.buildWithScope(JobWorkers.layer({ pollInterval: "50 millis", lease: "10 seconds", kinds: [IngestSource.kind] }), scope))
    expect(Context.get(context, JobWorkers).workerIds.length).toBeGreaterThan(0)
    try {
      return await body()
    } finally {
      await run(Scope.close(scope, Exit.void))
    }
  }

  beforeAll(async () => {
    database = await createTestDatabase()
    runtime = ManagedRuntime.make(knowledgeProcess(database.settings)) as Runtime
    const seeded = await run(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        const [org] = yield* sql<{ id: string }>`INSERT INTO organizations (name) VALUES ('Lease test') RETURNING id`
        const [department] = yield* sql<{ id: string }>`INSERT INTO departments (organization_id, name) VALUES (${org!.id}, 'Ops') RETURNING id`
        const [user] = yield* sql<{ id: string }>`
          INSERT INTO users (organization_id, department_id, email, name, role, clearance)
          VALUES (${org!.id}, ${department!.id}, 'ops@example.com', 'Ops', 'ADMIN', 'RESTRICTED') RETURNING id`
        const [space] = yield* sql<{ id: string }>`
          INSERT INTO knowledge_spaces (organization_id, key, name) VALUES (${org!.id}, 'ferries', 'Ferries') RETURNING id`
        yield* sql`
          INSERT INTO space_grants (knowledge_space_id, relation, kind, subject_id, created_by)
          VALUES (${space!.id}, 'manager', 'USER', ${user!.id}, ${user!.id})`
        return { organizationId: org!.id, departmentId: department!.id, userId: user!.id, spaceId: space!.id }
      })
    )
    spaceId = seeded.spaceId
    principal = {
      userId: seeded.userId,
      organizationId: seeded.organizationId,
      departmentId: seeded.departmentId,
      departmentName: "Operations",
      email: "ops@example.com",
      name: "Ops",
      role: "ADMIN",
      clearance: "RESTRICTED",
      platformRoles: ["ORG_ADMIN"],
      credential: { kind: "token", id: "lease-test" }
    }
  }, 120_000)
  afterAll(async () => {
    await runtime?.dispose()
    await database?.dispose()
    rmSync(files, { recursive: true, force: true })
  })

  it("a job whose worker was killed mid-job is taken over after the lease and finishes once", async () => {
    const uploaded = await upload("killed.md", handbook("killed"))
    expect(uploaded.status).toBe("PROCESSING")
    const jobId = await jobFor(uploaded.id)
    // The worker that is about to be killed claims the job with a short lease, then never reports back.
    const killed = await claim("killed-process#1", 300)
    expect(killed.job.id).toBe(jobId)
    expect((await source(uploaded.id)).status).toBe("PROCESSING")

    await withWorkers(() => run(eventually(Effect.promise(() => jobState(jobId)), (state) => state.status === "SUCCEEDED")))
    const state = await jobState(jobId)
    expect(state.attempts.map((a) => a.outcome)).toEqual(["LEASE_EXPIRED", "SUCCEEDED"])
    expect(state.attempts[0]!.workerId).toBe("killed-process#1")
    expect(state.attempts[1]!.workerId).not.toBe("killed-process#1")
    await expectIngestedOnce(uploaded.id, "killed")
  })

  it("a worker that comes back after its lease was taken over cannot write anything", async () => {
    const uploaded = await upload("zombie.md", handbook("zombie"))
    const jobId = await jobFor(uploaded.id)
    const zombie = await claim("zombie-process#1", 200)
    await leaseExpired(jobId)
    const rescuer = await claim("rescuer-process#1", 30_000)
    expect(rescuer.job.id).toBe(jobId)
    expect(rescuer.lease.attempt).toBe(2)

    // The stalled worker wakes up and runs the whole handler: its fenced write is refused.
    const stale = await runHandler(zombie)
    expect(Exit.isFailure(stale)).toBe(true)
    if (Exit.isFailure(stale)) expect(JSON.stringify(stale.cause)).toContain("LEASE_LOST")
    expect(await chunkRows(uploaded.id)).toMatchObject({ rows: 0 })
    expect((await source(uploaded.id)).status).toBe("PROCESSING")

    const fresh = await runHandler(rescuer)
    expect(Exit.isSuccess(fresh)).toBe(true)
    expect(await run(Effect.flatMap(JobQueue, (queue) => queue.complete(rescuer.lease)))).toBe(true)
    // The zombie can neither complete nor fail the job any more.
    expect(await run(Effect.flatMap(JobQueue, (queue) => queue.complete(zombie.lease)))).toBe(false)
    expect(Option.isNone(await run(Effect.flatMap(JobQueue, (queue) => queue.fail(zombie.lease, JobFailure.retryable("X", "x")))))).toBe(true)
    expect((await jobState(jobId)).status).toBe("SUCCEEDED")
    await expectIngestedOnce(uploaded.id, "zombie")
  })

  it("a worker that did the work but died before recording it leaves nothing duplicated", async () => {
    const uploaded = await upload("unacked.md", handbook("unacked"))
    const jobId = await jobFor(uploaded.id)
    const first = await claim("unacked-process#1", 500)
    // It ingests completely (READY, chunks searchable) and dies before queue.complete.
    expect(Exit.isSuccess(await runHandler(first))).toBe(true)
    await expectIngestedOnce(uploaded.id, "unacked")
    const chunkIdsBefore = (await searchFor("unacked ferry rule")).evidence.map((e) => e.citationId).sort()

    await leaseExpired(jobId)
    await withWorkers(() => run(eventually(Effect.promise(() => jobState(jobId)), (state) => state.status === "SUCCEEDED")))
    expect((await jobState(jobId)).attempts.map((a) => a.outcome)).toEqual(["LEASE_EXPIRED", "SUCCEEDED"])
    await expectIngestedOnce(uploaded.id, "unacked")
    // Stable chunk ids: the same passages, the same citations.
    expect((await searchFor("unacked ferry rule")).evidence.map((e) => e.citationId).sort()).toEqual(chunkIdsBefore)
    // And the earlier sources are still there exactly once.
    await expectIngestedOnce((await searchFor("killed ferry rule")).evidence[0]!.knowledgeAssetVersionId, "killed")
  })
})
