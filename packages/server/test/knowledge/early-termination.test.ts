import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AccessEvaluator } from "../../src/access/Evaluator"
import { toPrincipal } from "../../src/identity/Authenticator"
import { IdentityRepo } from "../../src/identity/Repo"
import { type KnowledgeFilters, type RankedChunk, type SearchAccess, SearchIndexReader, type WholeScoringGate } from "../../src/knowledge/SearchIndexReader"
import { MAINTENANCE_LOOSE_BLOCKS, SearchIndexWriter } from "../../src/knowledge/SearchIndexWriter"
import { POSTING_BYTES } from "../../src/knowledge/PackedRanking"
import { RUN_FANOUT } from "../../src/knowledge/RunMerging"
import { hashSecret } from "../../src/platform/SecretBox"
import { type InspectableServer, startInspectableServer } from "./inspect"
import { client, search, settled, uploaded } from "./support"

/**
 * Early termination (SearchIndexReader.lexicalPruned) against exhaustive BM25 (SearchIndexReader.lexical without
 * a cap) on the same index: Zipf-distributed text where the commonest words are in nearly every chunk, read
 * to depths small enough that most posting lists are cut. Whenever the pruned ranking says it is exact, it
 * is; its scores are always the exhaustive scores of those chunks; and a depth past every list is exact.
 */
describe("search early termination", { timeout: 180_000 }, () => {
  let server: InspectableServer
  const spaces: Array<string> = []
  const sourceIds: Array<string> = []
  const BLOCK = 4

  const pendingChunks = async () => Number((await server.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM search_pending`))[0]!.n)
  const waitForPacking = async () => {
    for (let i = 0; i < 300 && (await pendingChunks()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(await pendingChunks()).toBe(0)
  }

  // Three-syllable words (none a stopword, stems unchanged), drawn by a seeded generator with Zipf weights.
  const syllables = ["ka", "lo", "mi", "re", "tu", "no", "vi", "ze"]
  const vocabulary = syllables.flatMap((a) => syllables.flatMap((b) => syllables.map((c) => `${a}${b}${c}`)))
  let seed = 20261126
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const harmonic = vocabulary.map((_, i) => 1 / (i + 1))
  const total = harmonic.reduce((a, b) => a + b, 0)
  const word = () => {
    let r = random() * total
    for (let i = 0; i < vocabulary.length; i++) if ((r -= harmonic[i]!) <= 0) return vocabulary[i]!
    return vocabulary[vocabulary.length - 1]!
  }
  const words = (n: number) => Array.from({ length: n }, word).join(" ")
  const document = (sections: number) => Array.from({ length: sections }, (_, i) => `# Part ${i + 1}\n\n${words(160)}.\n`).join("\n")

  beforeAll(async () => {
    // Search over HTTP takes early termination here whenever it reads less than exhaustive scoring would.
    // Blocks of 4 postings, so packed lists are cut at these depths too.
    server = await startInspectableServer({ settings: { search: { exhaustiveMaxPostings: 0, prunedDepth: 2, prunedCandidates: 1, blockPostings: BLOCK } } })
    const admin = client(server.url, server.adminToken)
    for (const key of ["first", "second"]) spaces.push((await admin.call("POST", "/api/admin/knowledge-spaces", { key, name: key })).body.id)
    const sources = []
    for (let i = 0; i < 24; i++) {
      sources.push(await uploaded(admin, { spaceId: spaces[i % 2]!, name: `doc-${i}.md`, bytes: document(8), type: "text/markdown", classification: i % 3 === 0 ? "CONFIDENTIAL" : "INTERNAL" }))
    }
    for (const source of sources) expect((await settled(admin, source.id)).status).toBe("READY")
    sourceIds.push(...sources.map((source) => source.id))
    // The packer runs as a job after each ingestion: every posting is packed before the comparisons start.
    await waitForPacking()
  }, 180_000)
  afterAll(() => server?.dispose())

  /** The admin's access as search builds it, optionally narrowed by a stand-in source ACL admitting ~1 in 3 chunks. */
  const accessOf = (sourceAcl: boolean) =>
    Effect.gen(function* () {
      const identity = yield* IdentityRepo
      const evaluator = yield* AccessEvaluator
      const sql = yield* SqlClient.SqlClient
      const row = yield* identity.principalByTokenHash(hashSecret(server.adminToken))
      const principal = toPrincipal(row!, "token")
      const scope = yield* evaluator.readScope(principal)
      const access: SearchAccess = {
        partitions: (alias) => evaluator.grantAndClearance(scope, alias),
        visible: sourceAcl
          ? (alias) => sql`(${evaluator.visibleTo(scope, alias)} AND get_byte(uuid_send(${sql(alias)}.id), 0) % 3 = 0)`
          : (alias) => evaluator.visibleTo(scope, alias)
      }
      return { organizationId: principal.organizationId, access }
    })

  interface Comparison {
    readonly pruned: { readonly ranked: ReadonlyArray<RankedChunk>; readonly certain: boolean; readonly unscoredBound: number; readonly via: "blocks" | "rows" }
    readonly exhaustive: ReadonlyArray<RankedChunk>
  }

  /** The repositories this test calls directly, on the server's own database connection. */
  const repositories = Layer.mergeAll(SearchIndexReader.Default, SearchIndexWriter.Default, AccessEvaluator.Default, IdentityRepo.Default)

  const compare = (query: string, options: { depth: number; candidates: number; limit: number; sourceAcl?: boolean; filters?: KnowledgeFilters; via?: "any" | "rows" }) =>
    server.run(
      Effect.gen(function* () {
        const index = yield* SearchIndexReader
        const { organizationId, access } = yield* accessOf(options.sourceAcl ?? false)
        const filters = options.filters ?? {}
        const pruned = yield* index.lexicalPruned(organizationId, query, access, filters, options.limit, options.depth, options.candidates, BLOCK, options.via)
        const exhaustive = yield* index.lexical(organizationId, query, access, filters, 10_000, null)
        // Neither reading is tested by accident through the other.
        expect(pruned.via).toBe(options.via === "rows" ? "rows" : "blocks")
        return { pruned, exhaustive: exhaustive.ranked } satisfies Comparison
      }).pipe(Effect.provide(repositories))
    )

  /** Exhaustive BM25 behind a gate (SearchIndexReader.lexical): skipped when early termination would read less. */
  const gated = (query: string, gate: WholeScoringGate, limit = 5) =>
    server.run(
      Effect.gen(function* () {
        const index = yield* SearchIndexReader
        const { organizationId, access } = yield* accessOf(false)
        return yield* index.lexical(organizationId, query, access, {}, limit, null, gate)
      }).pipe(Effect.provide(repositories))
    )

  /** Early termination asked first (SearchIndexReader.blocksFirst), its statement answering the gate too. */
  const blocksFirst = (query: string, gate: WholeScoringGate, limit = 5) =>
    server.run(
      Effect.gen(function* () {
        const index = yield* SearchIndexReader
        const { organizationId, access } = yield* accessOf(false)
        return yield* index.blocksFirst(organizationId, query, access, {}, limit, gate, BLOCK)
      }).pipe(Effect.provide(repositories))
    )

  /** The same ranking, where scores differ (float sums taken in another order may swap exact ties). */
  const expectSameRanking = (actual: ReadonlyArray<RankedChunk>, expected: ReadonlyArray<RankedChunk>) => {
    expect(actual.map((hit) => hit.score)).toEqual(expected.map((hit) => expect.closeTo(hit.score, 9)))
    const tied = (i: number) => (expected[i - 1] !== undefined && Math.abs(expected[i - 1]!.score - expected[i]!.score) < 1e-9)
      || (expected[i + 1] !== undefined && Math.abs(expected[i + 1]!.score - expected[i]!.score) < 1e-9)
    actual.forEach((hit, i) => {
      if (!tied(i)) expect(hit.id).toBe(expected[i]!.id)
    })
  }

  /** Every returned score is the chunk's exhaustive BM25 score: pruning chooses candidates, never scores. */
  const expectExactScores = ({ pruned, exhaustive }: Comparison) => {
    const exact = new Map(exhaustive.map((hit) => [hit.id, hit.score]))
    for (const hit of pruned.ranked) expect(hit.score).toBeCloseTo(exact.get(hit.id)!, 9)
  }

  /**
   * The bound on chunks not scored holds: a chunk that outscores the pruned ranking's last yet is not in it was
   * not scored (nothing filters it here), so its exhaustive score is at most the bound.
   */
  const expectSoundBound = ({ pruned, exhaustive }: Comparison) => {
    const ranked = new Set(pruned.ranked.map((hit) => hit.id))
    const last = pruned.ranked.at(-1)?.score ?? 0
    for (const hit of exhaustive) {
      if (hit.score <= last) break
      if (!ranked.has(hit.id)) expect(hit.score).toBeLessThanOrEqual(pruned.unscoredBound + 1e-9)
    }
  }

  const questions = Array.from({ length: 24 }, (_, i) => words(3 + (i * 7) % 30))

  it("serves GET /api/knowledge/search by early termination past the gate: its ranking, or exhaustive BM25's when proved equal", async () => {
    const admin = client(server.url, server.adminToken)
    // What the server's settings make of a one-result page: the search asks for one more, 4 candidates each.
    const gate = { maxPostings: 0, depth: 2, candidates: 8 }
    let pruned = 0
    for (const q of questions.slice(0, 12)) {
      const evidence = await search(admin, q, { limit: 1 })
      const whole = !(await gated(q, gate, 2)).skipped
      const comparison = await compare(q, { depth: gate.depth, candidates: gate.candidates, limit: 2 })
      if (!whole) pruned++
      const expected = (whole || comparison.pruned.certain ? comparison.exhaustive : comparison.pruned.ranked).slice(0, 1)
      // relevanceScore is rounded to 6 decimals.
      expect(evidence.map((hit) => hit.relevanceScore)).toEqual(expected.map((hit) => expect.closeTo(hit.score, 5)))
    }
    expect(pruned).toBeGreaterThan(0)
  })

  it("scores a question whole when its postings are few, or no more than early termination would read", async () => {
    const common = questions[20]!
    const exhaustive = (await compare(common, { depth: 4, candidates: 4, limit: 5 })).exhaustive.slice(0, 5)
    // Few postings allowed, and early termination would read fewer: skipped, nothing scored.
    const skipped = await gated(common, { maxPostings: 1, depth: 1, candidates: 1 })
    expect(skipped.skipped).toBe(true)
    expect(skipped.ranked).toEqual([])
    // Many allowed; or few, but early termination would read every list anyway: scored whole, exactly.
    for (const gate of [{ maxPostings: 1_000_000, depth: 1, candidates: 1 }, { maxPostings: 1, depth: 1_000_000, candidates: 1 }]) {
      const whole = await gated(common, gate)
      expect(whole.skipped).toBe(false)
      expectSameRanking(whole.ranked, exhaustive)
    }
  })

  it("answers the gate from early termination's own statement when asked blocks first, and ranks as it does", async () => {
    await waitForPacking()
    for (const q of questions.slice(0, 12)) {
      for (const gate of [{ maxPostings: 0, depth: 2, candidates: 8 }, { maxPostings: 1, depth: 1_000_000, candidates: 1 }, { maxPostings: 1_000_000, depth: 4, candidates: 8 }]) {
        const first = await blocksFirst(q, gate)
        expect(first).toBeDefined()
        const skipped = (await gated(q, gate)).skipped
        expect(first === "whole").toBe(!skipped)
        if (first !== undefined && first !== "whole") {
          const { pruned } = await compare(q, { depth: gate.depth, candidates: gate.candidates, limit: 5 })
          expect(first.certain).toBe(pruned.certain)
          expectSameRanking(first.ranked, pruned.ranked)
        }
      }
    }
  })

  for (const via of ["any", "rows"] as const) describe(via === "rows" ? "over postings rows" : "over packed blocks", () => {
    it("is exact whenever it says so, and reads every list when they are shorter than its depth", async () => {
      let certain = 0
      let uncertain = 0
      for (const [i, q] of questions.entries()) {
        for (const [depth, candidates] of [[4, 12], [16, 12], [16, 48], [64, 48]] as const) {
          const comparison = await compare(q, { depth, candidates, limit: 5, sourceAcl: i % 2 === 1, via })
          expectExactScores(comparison)
          if (comparison.pruned.certain) {
            certain++
            expectSameRanking(comparison.pruned.ranked, comparison.exhaustive.slice(0, 5))
          } else uncertain++
        }
        const whole = await compare(q, { depth: 100_000, candidates: 100_000, limit: 10, sourceAcl: i % 2 === 1, via })
        expect(whole.pruned.certain).toBe(true)
        expectSameRanking(whole.pruned.ranked, whole.exhaustive.slice(0, 10))
      }
      // Both outcomes happen here, so neither check above is vacuous.
      expect(certain).toBeGreaterThan(5)
      expect(uncertain).toBeGreaterThan(5)
    })

    it("keeps filters and the caller's partitions in the lists it reads", async () => {
      for (const q of questions.slice(0, 8)) {
        for (const filters of [{ knowledgeSpaceId: spaces[1]! }, { classificationRank: 2 }]) {
          const comparison = await compare(q, { depth: 16, candidates: 40, limit: 5, filters, via })
          expectExactScores(comparison)
          const allowed = new Set(comparison.exhaustive.map((hit) => hit.id))
          for (const hit of comparison.pruned.ranked) expect(allowed.has(hit.id)).toBe(true)
          if (comparison.pruned.certain) expectSameRanking(comparison.pruned.ranked, comparison.exhaustive.slice(0, 5))
        }
      }
    })
    it("shares its reading by the terms' weights: a rare term's list is read whole before common ones", async () => {
      // A term in 6-10 chunks beside the two commonest (in nearly every chunk), read at 4 postings per term:
      // 12 in all, so the rare term's whole list fits only if it takes the common terms' share.
      const df = await server.sql((sql) => sql<{ term: string; df: number }>`
        SELECT term, sum(document_frequency)::int AS df FROM search_terms GROUP BY term ORDER BY df DESC, term`)
      const rare = df.find((t) => t.df >= 6 && t.df <= 10)!
      const question = `${df[0]!.term} ${rare.term} ${df[1]!.term}`
      const { pruned, exhaustive } = await compare(question, { depth: 4, candidates: 100, limit: rare.df, via })
      // Chunks with the rare term outrank every other (its weight dwarfs the common terms'): all of them are found.
      expectSameRanking(pruned.ranked, exhaustive.slice(0, rare.df))
      expectExactScores({ pruned, exhaustive })
    })

    it("finds most of the exhaustive top 5 even when lists are cut short", async () => {
      let found = 0
      let wanted = 0
      for (const q of questions) {
        const { pruned, exhaustive } = await compare(q, { depth: 32, candidates: 40, limit: 5, via })
        const best = new Set(exhaustive.slice(0, 5).map((hit) => hit.id))
        wanted += best.size
        found += pruned.ranked.filter((hit) => best.has(hit.id)).length
      }
      expect(found / wanted).toBeGreaterThan(0.7)
    })
  })

  describe("packed postings", () => {
    interface Posting { readonly term: string; readonly chunk: string; readonly impact: number }
    const key = (p: Posting) => `${p.term} ${p.chunk} ${p.impact.toFixed(5)}`

    /** Every entry of every block, checked for order within its block, its top impact and its count. */
    const packedEntries = async () => {
      const blocks = await server.sql((sql) => sql<{ term: string; topImpact: number; postings: number; packed: Uint8Array }>`
        SELECT term, top_impact, postings, packed FROM search_blocks`)
      const entries: Array<Posting> = []
      for (const block of blocks) {
        const view = new DataView(block.packed.buffer, block.packed.byteOffset, block.packed.byteLength)
        const impacts: Array<number> = []
        for (let at = 0; at < block.packed.byteLength; at += POSTING_BYTES) {
          const chunk = Buffer.from(block.packed.subarray(at, at + 16)).toString("hex").replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, "$1-$2-$3-$4-$5")
          impacts.push(view.getFloat32(at + 16))
          entries.push({ term: block.term, chunk, impact: view.getFloat32(at + 16) })
        }
        expect(impacts.length).toBe(block.postings)
        expect(impacts.length).toBeLessThanOrEqual(BLOCK)
        expect(impacts).toEqual([...impacts].sort((a, b) => b - a))
        expect(impacts[0]).toBeCloseTo(block.topImpact, 5)
      }
      return entries
    }
    /** A call on the index repository, as the admin's organization. */
    const onIndex = <A, E>(use: (index: SearchIndexWriter, organizationId: string) => Effect.Effect<A, E>) =>
      server.run(Effect.gen(function* () {
        const index = yield* SearchIndexWriter
        const { organizationId } = yield* accessOf(false)
        return yield* use(index, organizationId)
      }).pipe(Effect.provide(repositories)))
    const searchablePostings = () => server.sql((sql) => sql<Posting>`
      SELECT p.term, p.chunk_id::text AS chunk, p.impact FROM search_postings p JOIN chunks c ON c.id = p.chunk_id WHERE c.searchable`)

    it("holds every searchable posting once, after the packer's appends and rebuilds", async () => {
      // Whether the packer job appended while the documents above arrived depends on timing: one more document,
      // packed on its own, appends to the common terms' lists (and rebuilds the rare ones').
      const admin = client(server.url, server.adminToken)
      const late = await uploaded(admin, { spaceId: spaces[1]!, name: "late.md", bytes: document(2), type: "text/markdown", classification: "INTERNAL" })
      expect((await settled(admin, late.id)).status).toBe("READY")
      await onIndex((index, organizationId) => index.packPending(organizationId, BLOCK))
      // The packer job that ingestion queued runs in a second or two: let it, so later cases own search_pending.
      const packJobs = async () => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM jobs WHERE kind = 'knowledge.pack-search-postings' AND status IN ('QUEUED', 'RUNNING')`))[0]!.n)
      for (let i = 0; i < 100 && (await packJobs()) > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100))
      expect(await packJobs()).toBe(0)
      const packed = (await packedEntries()).map(key).sort()
      expect(packed).toEqual((await searchablePostings()).map(key).sort())
      const rebuilt = await server.sql((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM search_packing WHERE in_blocks > rebuilt`)
      // Appended to without a rebuild somewhere: both of the packer's ways ran.
      expect(rebuilt[0]!.n).toBeGreaterThan(0)
    })

    it("reads the postings of chunks the packer has not reached", async () => {
      // Two documents' chunks wait for the packer; every other posting is packed without them.
      const waiting = sourceIds.slice(0, 2)
      await server.sql((sql) => sql`
        INSERT INTO search_pending (chunk_id, organization_id) SELECT id, organization_id FROM chunks WHERE source_id IN ${sql.in(waiting)}`)
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, false))
      const waitingChunks = new Set((await server.sql((sql) => sql<{ id: string }>`SELECT id FROM chunks WHERE source_id IN ${sql.in(waiting)}`)).map((c) => c.id))
      expect((await packedEntries()).some((entry) => waitingChunks.has(entry.chunk))).toBe(false)
      for (const q of questions.slice(0, 12)) {
        const whole = await compare(q, { depth: 100_000, candidates: 100_000, limit: 10 })
        expect(whole.pruned.certain).toBe(true)
        expectSameRanking(whole.pruned.ranked, whole.exhaustive.slice(0, 10))
        const cut = await compare(q, { depth: 16, candidates: 40, limit: 5 })
        expectExactScores(cut)
        if (cut.pruned.certain) expectSameRanking(cut.pruned.ranked, cut.exhaustive.slice(0, 5))
      }
      // The packer takes them (appending), and blocks hold every posting again; so does a rebuild taking them.
      expect(await onIndex((index, organizationId) => index.packPending(organizationId, BLOCK))).toBe(waitingChunks.size)
      expect((await packedEntries()).map(key).sort()).toEqual((await searchablePostings()).map(key).sort())
      await server.sql((sql) => sql`
        INSERT INTO search_pending (chunk_id, organization_id) SELECT id, organization_id FROM chunks WHERE source_id IN ${sql.in(waiting)}`)
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, true))
      expect(await pendingChunks()).toBe(0)
      expect((await packedEntries()).map(key).sort()).toEqual((await searchablePostings()).map(key).sort())
    })

    it("reads appended runs by threshold: after many small appends its bound holds, and it is exact when it says so", async () => {
      // Every block rebuilt; then eight more documents ingested one at a time, each appended as its own run of
      // small blocks whose best tops are high (the way steady ingestion leaves a list between rebuilds).
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, true))
      const admin = client(server.url, server.adminToken)
      for (let i = 0; i < 8; i++) {
        const source = await uploaded(admin, { spaceId: spaces[i % 2]!, name: `appended-${i}.md`, bytes: document(4), type: "text/markdown", classification: "INTERNAL" })
        expect((await settled(admin, source.id)).status).toBe("READY")
        // Packed now rather than by the job a second later (both take the packing lock; whichever comes first packs).
        await onIndex((index, organizationId) => index.packPending(organizationId, BLOCK))
      }
      // The last run holds the best chunk for the commonest terms (each many times over): an appended posting far
      // above the rebuilt blocks' threshold, which the reading must not leave out.
      const common = await server.sql((sql) => sql<{ term: string }>`
        SELECT term FROM search_terms GROUP BY term ORDER BY sum(document_frequency) DESC, term LIMIT 3`)
      const loud = await uploaded(admin, { spaceId: spaces[0]!, name: "loud.md", bytes: `# Loud\n\n${`${common.map((c) => c.term).join(" ")} `.repeat(30)}\n`, type: "text/markdown", classification: "INTERNAL" })
      expect((await settled(admin, loud.id)).status).toBe("READY")
      await onIndex((index, organizationId) => index.packPending(organizationId, BLOCK))
      const runs = await server.sql((sql) => sql<{ appended: number; rebuilt: number }>`
        SELECT count(*) FILTER (WHERE appended)::int AS appended, count(*) FILTER (WHERE NOT appended)::int AS rebuilt FROM search_blocks`)
      expect(runs[0]!.appended).toBeGreaterThan(runs[0]!.rebuilt / 4)
      expect((await packedEntries()).map(key).sort()).toEqual((await searchablePostings()).map(key).sort())

      const recall = async () => {
        let found = 0
        let wanted = 0
        for (const q of questions) {
          const comparison = await compare(q, { depth: 8, candidates: 10, limit: 5 })
          expectExactScores(comparison)
          expectSoundBound(comparison)
          if (comparison.pruned.certain) expectSameRanking(comparison.pruned.ranked, comparison.exhaustive.slice(0, 5))
          const best = new Set(comparison.exhaustive.slice(0, 5).map((hit) => hit.id))
          wanted += best.size
          found += comparison.pruned.ranked.filter((hit) => best.has(hit.id)).length
        }
        return found / wanted
      }
      const best = await compare(common.map((c) => c.term).join(" "), { depth: 8, candidates: 10, limit: 5 })
      const [loudChunk] = await server.sql((sql) => sql<{ id: string }>`SELECT id FROM chunks WHERE source_id = ${loud.id}`)
      expect(best.exhaustive[0]!.id).toBe(loudChunk!.id)
      expect(best.pruned.ranked[0]!.id).toBe(loudChunk!.id)
      // Both near what full blocks find (the ids are random, so ties among equal scores break differently per run).
      expect(await recall()).toBeGreaterThan(0.5)
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, true))
      expect(await recall()).toBeGreaterThan(0.5)
    })

    it("block maintenance merges the appended runs of the terms the packer appended to, queued by the packer; rankings unchanged", async () => {
      const overdue = async () => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM search_packing WHERE loose_blocks >= ${MAINTENANCE_LOOSE_BLOCKS}`))[0]!.n)
      /** The most appended runs any term (in a partition) has. */
      const mostRuns = async () => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT coalesce(max(runs), 0)::int AS n FROM (
          SELECT count(DISTINCT run) AS runs FROM search_blocks WHERE appended GROUP BY organization_id, term, knowledge_space_id, classification_rank) r`))[0]!.n)
      /** The terms (in a partition) maintenance has work for. */
      const dueTerms = async () => (await server.sql((sql) => sql<{ term: string }>`
        SELECT term || ' ' || knowledge_space_id || ' ' || classification_rank AS term FROM search_packing
        WHERE loose_blocks >= ${MAINTENANCE_LOOSE_BLOCKS}`)).map((row) => row.term)
      /** The most appended runs any of these terms has. */
      const mostRunsOf = async (terms: ReadonlyArray<string>) => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT coalesce(max(runs), 0)::int AS n FROM (
          SELECT count(DISTINCT run) AS runs FROM search_blocks
          WHERE appended AND term || ' ' || knowledge_space_id || ' ' || classification_rank = ANY(${terms}::text[])
          GROUP BY term, knowledge_space_id, classification_rank) r`))[0]!.n)
      /** Appended blocks whose top impact is not their best posting's (search reads a block by its top impact). */
      const misTopped = async () => (await server.sql((sql) => sql<{ top: number; packed: Uint8Array }>`
        SELECT top_impact AS top, packed FROM search_blocks WHERE appended`)).filter((block) => {
        const view = new DataView(block.packed.buffer, block.packed.byteOffset, block.packed.byteLength)
        let best = 0
        for (let at = 0; at < block.packed.byteLength; at += POSTING_BYTES) best = Math.max(best, view.getFloat32(at + 16))
        return best !== Math.fround(block.top)
      }).length
      /** search_packing's count of appended blocks against the blocks themselves, in one snapshot: terms where they differ. */
      const miscounted = async () => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM search_packing k
        WHERE k.appended_blocks <> (SELECT count(*) FROM search_blocks b WHERE b.appended AND b.organization_id = k.organization_id
          AND b.term = k.term AND b.knowledge_space_id = k.knowledge_space_id AND b.classification_rank = k.classification_rank)`))[0]!.n)
      const maintenanceJobs = async (statuses: ReadonlyArray<string>) => Number((await server.sql((sql) => sql<{ n: number }>`
        SELECT count(*)::int AS n FROM jobs WHERE kind = 'knowledge.maintain-search-blocks' AND status IN ${sql.in(statuses)}`))[0]!.n)
      /** Exact rankings (every list read whole) and cut ones, whose scores and bound must hold either way. */
      const rankings = async () => {
        const exact: Array<ReadonlyArray<RankedChunk>> = []
        for (const q of questions.slice(0, 12)) {
          const whole = await compare(q, { depth: 100_000, candidates: 100_000, limit: 10 })
          expect(whole.pruned.certain).toBe(true)
          expectSameRanking(whole.pruned.ranked, whole.exhaustive.slice(0, 10))
          exact.push(whole.pruned.ranked)
          const cut = await compare(q, { depth: 8, candidates: 10, limit: 5 })
          expectExactScores(cut)
          expectSoundBound(cut)
        }
        return exact
      }
      // Rare words (the vocabulary's tail) given lists of a few rebuilt blocks, then in every small document after.
      const tail = vocabulary.slice(-10).join(" ")
      const admin = client(server.url, server.adminToken)
      const ingest = async (name: string, sections: number, spaceId: string) => {
        const text = Array.from({ length: sections }, (_, i) => `# ${name} ${i + 1}\n\n${words(80)} ${tail}.\n`).join("\n")
        const source = await uploaded(admin, { spaceId, name: `${name}.md`, bytes: text, type: "text/markdown", classification: "INTERNAL" })
        expect((await settled(admin, source.id)).status).toBe("READY")
      }
      const appendRuns = async (documents: number, prefix: string) => {
        for (let i = 0; i < documents; i++) {
          await ingest(`${prefix}-${i}`, 1, spaces[0]!)
          await onIndex((index, organizationId) => index.packPending(organizationId, BLOCK))
        }
      }
      for (let i = 0; i < 3; i++) await ingest(`seed-${i}`, 8, spaces[0]!)

      // Every block rebuilt, then small documents packed one at a time: each pack appends a run to every term it
      // touches, so the rare terms soon hold a run per document.
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, true))
      expect(await overdue()).toBe(0)
      await appendRuns(MAINTENANCE_LOOSE_BLOCKS + 1, "steady")
      expect(await miscounted()).toBe(0)
      expect(await mostRuns()).toBeGreaterThanOrEqual(MAINTENANCE_LOOSE_BLOCKS)
      const due = await dueTerms()
      expect(due.length).toBeGreaterThan(0)
      expect(await mostRunsOf(due)).toBeGreaterThanOrEqual(MAINTENANCE_LOOSE_BLOCKS)
      const before = await rankings()

      // Nobody maintains anything by hand: the packer job queues maintenance, which merges every due term's runs.
      for (let i = 0; i < 200 && ((await overdue()) > 0 || (await maintenanceJobs(["QUEUED", "RUNNING"])) > 0); i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(await overdue()).toBe(0)
      expect(await maintenanceJobs(["SUCCEEDED"])).toBeGreaterThan(0)
      expect(await miscounted()).toBe(0)
      // The due terms' runs merged: fewer than RUN_FANOUT of a size each; a term appended to fewer times waits its turn.
      expect(await mostRunsOf(due)).toBeLessThan(RUN_FANOUT)
      expect(await mostRuns()).toBeLessThan(MAINTENANCE_LOOSE_BLOCKS)
      expect(await misTopped()).toBe(0)
      expect((await packedEntries()).map(key).sort()).toEqual((await searchablePostings()).map(key).sort())
      const after = await rankings()
      after.forEach((ranked, i) => expectSameRanking(ranked, before[i]!))

      // Called directly: nothing left to do; then, with work again, a budget of one posting still merges one term's runs.
      expect(await onIndex((index, organizationId) => index.maintainBlocks(organizationId, BLOCK, 1_000_000))).toEqual({ terms: 0, postings: 0, due: 0, busy: false })
      await appendRuns(MAINTENANCE_LOOSE_BLOCKS, "budget")
      const done = await onIndex((index, organizationId) => index.maintainBlocks(organizationId, BLOCK, 1))
      expect(done.terms).toBe(done.due > 0 ? 1 : 0)
      expect(await misTopped()).toBe(0)
      expect(await miscounted()).toBe(0)
      expect((await packedEntries()).map(key).sort()).toEqual((await searchablePostings()).map(key).sort())
    })

    // PGlite serves one connection: a second transaction waits for the connection, not for the lock.
    it.skipIf(!process.env.DATABASE_URL)("the packer job's way and block maintenance never wait for another packer: busy, and nothing taken", async () => {
      const lockKey = (organizationId: string) => `lore.search-pack:${organizationId}`
      const result = await server.run(Effect.gen(function* () {
        const index = yield* SearchIndexWriter
        const sql = yield* SqlClient.SqlClient
        const { organizationId } = yield* accessOf(false)
        // Another packer: a transaction holding the organization's packing lock for a while.
        const holder = yield* Effect.fork(sql.withTransaction(sql`SELECT pg_advisory_xact_lock(hashtext(${lockKey(organizationId)})), pg_sleep(2)`))
        yield* Effect.sleep("500 millis")
        // Had it waited for the lock, it would have packed (nothing) and said it was free.
        const busy = yield* index.packPendingUnlessBusy(organizationId, BLOCK)
        // Block maintenance neither: several windows' runs waiting on each other once took every job worker.
        const maintenance = yield* index.maintainBlocks(organizationId, BLOCK, 1_000_000)
        yield* holder.await
        return { busy, maintenance }
      }).pipe(Effect.provide(repositories)))
      expect(result.busy).toEqual({ packed: 0, busy: true })
      expect(result.maintenance).toEqual({ terms: 0, postings: 0, due: 0, busy: true })
    })

    it("never returns a chunk taken out of search, though its packed entries stay until a rebuild", async () => {
      const admin = client(server.url, server.adminToken)
      const removed = sourceIds[2]!
      const chunks = new Set((await server.sql((sql) => sql<{ id: string }>`SELECT id FROM chunks WHERE source_id = ${removed}`)).map((c) => c.id))
      expect((await admin.call("DELETE", `/api/sources/${removed}`)).status).toBe(200)
      expect((await packedEntries()).some((entry) => chunks.has(entry.chunk))).toBe(true)
      for (const q of questions) {
        const { pruned, exhaustive } = await compare(q, { depth: 100_000, candidates: 100_000, limit: 10 })
        expect(pruned.ranked.some((hit) => chunks.has(hit.id))).toBe(false)
        expect(pruned.certain).toBe(true)
        expectSameRanking(pruned.ranked, exhaustive.slice(0, 10))
      }
      await onIndex((index, organizationId) => index.repack(organizationId, BLOCK, true))
      expect((await packedEntries()).some((entry) => chunks.has(entry.chunk))).toBe(false)
    })
  })
})
