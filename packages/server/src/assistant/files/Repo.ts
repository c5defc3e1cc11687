import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { affected, Count, exec, one, row, rows, Timestamp } from "../../db/Rows"

/** An assistant file as stored (its bytes and chunks are in their own tables). */
export const FileRow = Schema.Struct({
  id: Schema.String,
  organizationId: Schema.String,
  ownerId: Schema.String,
  fileName: Schema.String,
  mediaType: Schema.String,
  declaredMediaType: Schema.NullOr(Schema.String),
  contentLength: Schema.Number,
  status: Schema.Literal("UPLOADED", "PROCESSING", "READY", "FAILED"),
  failureCode: Schema.NullOr(Schema.String),
  failureMessage: Schema.NullOr(Schema.String),
  generation: Schema.Number,
  pageCount: Schema.NullOr(Schema.Number),
  chunkCount: Schema.NullOr(Schema.Number),
  expiresAt: Timestamp,
  createdAt: Timestamp,
  /** Whether expires_at has passed, by the database clock (the one the purge uses). */
  expired: Schema.Boolean
})
export type FileRow = typeof FileRow.Type

export const ChunkRow = Schema.Struct({
  id: Schema.String,
  fileId: Schema.String,
  generation: Schema.Number,
  ordinal: Schema.Number,
  heading: Schema.NullOr(Schema.String),
  headingPath: Schema.Array(Schema.String),
  startPage: Schema.NullOr(Schema.Number),
  endPage: Schema.NullOr(Schema.Number),
  content: Schema.String
})
export type ChunkRow = typeof ChunkRow.Type

const Content = Schema.Struct({ content: Schema.Uint8ArrayFromSelf })
const Scored = Schema.Struct({ id: Schema.String, score: Schema.Number })
const Id = Schema.Struct({ id: Schema.String })
const Total = Schema.Struct({ count: Count })

export interface NewFile {
  readonly id: string
  readonly organizationId: string
  readonly ownerId: string
  readonly fileName: string
  readonly mediaType: string
  readonly declaredMediaType: string | null
  readonly contentLength: number
  readonly contentDigest: string
  readonly retentionMs: number
}

export interface NewChunk {
  readonly id: string
  readonly ordinal: number
  readonly heading: string | null
  readonly headingPath: ReadonlyArray<string>
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
  readonly wordCount: number
}

/** SQL for assistant files, their bytes and their chunks. Every read by a user is scoped to the owner. */
export class FilesRepo extends Effect.Service<FilesRepo>()("lore/assistant/FilesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const select = sql`
      SELECT f.id, f.organization_id, f.owner_id, f.file_name, f.media_type, f.declared_media_type,
        f.content_length::int AS content_length, f.status, f.failure_code, f.failure_message, f.generation::int AS generation,
        f.page_count, f.chunk_count, f.expires_at, f.created_at, f.expires_at <= now() AS expired
      FROM assistant_files f`

    const insert = one("assistantFiles.insert", Id, (file: NewFile) => sql`
      INSERT INTO assistant_files (id, organization_id, owner_id, file_name, media_type, declared_media_type, content_length,
        content_digest, status, expires_at)
      VALUES (${file.id}, ${file.organizationId}, ${file.ownerId}, ${file.fileName}, ${file.mediaType}, ${file.declaredMediaType},
        ${file.contentLength}, ${file.contentDigest}, 'UPLOADED', now() + make_interval(secs => ${file.retentionMs / 1000}))
      RETURNING id`)

    const putContent = exec((fileId: string, content: Uint8Array) =>
      sql`INSERT INTO assistant_file_contents (file_id, content) VALUES (${fileId}, ${content}) ON CONFLICT (file_id) DO NOTHING`)

    /** The caller's own live file (not expired), or undefined: another user's file and an expired one look the same. */
    const owned = row("assistantFiles.owned", FileRow, (ownerId: string, fileId: string) =>
      sql`${select} WHERE f.id = ${fileId} AND f.owner_id = ${ownerId} AND f.expires_at > now()`)

    const page = rows("assistantFiles.page", FileRow, (ownerId: string, offset: number, limit: number) =>
      sql`${select} WHERE f.owner_id = ${ownerId} AND f.expires_at > now() ORDER BY f.created_at DESC, f.id DESC OFFSET ${offset} LIMIT ${limit}`)

    const ownedMany = rows("assistantFiles.ownedMany", FileRow, (ownerId: string, fileIds: ReadonlyArray<string>) =>
      sql`${select} WHERE f.owner_id = ${ownerId} AND f.expires_at > now() AND f.id = ANY(${[...fileIds]}::uuid[])`)

    /** For the processing job: the file whatever its owner. */
    const load = row("assistantFiles.load", FileRow, (fileId: string) => sql`${select} WHERE f.id = ${fileId}`)

    const content = row("assistantFiles.content", Content, (fileId: string) => sql`SELECT content FROM assistant_file_contents WHERE file_id = ${fileId}`)

    const chunk = row("assistantFiles.chunk", ChunkRow, (fileId: string, chunkId: string, generation: number) => sql`
      SELECT id, file_id, generation::int AS generation, ordinal, heading, heading_path, start_page, end_page, content
      FROM assistant_file_chunks WHERE id = ${chunkId} AND file_id = ${fileId} AND generation = ${generation}`)

    const chunksByIds = rows("assistantFiles.chunksByIds", ChunkRow, (ids: ReadonlyArray<string>) => sql`
      SELECT id, file_id, generation::int AS generation, ordinal, heading, heading_path, start_page, end_page, content
      FROM assistant_file_chunks WHERE id = ANY(${[...ids]}::uuid[])`)

    /** The first `perFile` chunks of each file's current generation, in document order. */
    const leadingChunks = rows("assistantFiles.leadingChunks", ChunkRow, (fileIds: ReadonlyArray<string>, perFile: number) => sql`
      SELECT c.id, c.file_id, c.generation::int AS generation, c.ordinal, c.heading, c.heading_path, c.start_page, c.end_page, c.content
      FROM assistant_file_chunks c JOIN assistant_files f ON f.id = c.file_id AND f.generation = c.generation
      WHERE c.file_id = ANY(${[...fileIds]}::uuid[]) AND c.ordinal < ${perFile}
      ORDER BY c.file_id, c.ordinal`)

    /**
     * Okapi BM25 (k1 1.2, b 0.75) over the current chunks of the given files only, OR semantics over the
     * query's English lexemes (parsed as knowledge search parses questions: 'lore_search_query', migration 0023),
     * document frequencies taken within those files (they are the corpus here).
     */
    const rank = rows("assistantFiles.rank", Scored, (fileIds: ReadonlyArray<string>, query: string, limit: number) => sql`
      WITH candidates AS (
        SELECT c.id, c.word_count, c.search_vector
        FROM assistant_file_chunks c JOIN assistant_files f ON f.id = c.file_id AND f.generation = c.generation
        WHERE c.file_id = ANY(${[...fileIds]}::uuid[])
      ),
      stats AS (SELECT count(*)::float8 AS n, greatest(avg(word_count), 1)::float8 AS avgdl FROM candidates),
      terms AS (SELECT DISTINCT v.lexeme AS term FROM unnest(to_tsvector('lore_search_query', ${query})) AS v),
      hits AS (
        SELECT c.id, t.lexeme AS term, coalesce(array_length(t.positions, 1), 1)::float8 AS tf, c.word_count::float8 AS dl
        FROM candidates c CROSS JOIN LATERAL unnest(c.search_vector) AS t
        WHERE t.lexeme IN (SELECT term FROM terms)
      ),
      df AS (SELECT term, count(*)::float8 AS df FROM hits GROUP BY term)
      SELECT h.id, sum(
        ln(1 + (s.n - df.df + 0.5) / (df.df + 0.5)) * (h.tf * 2.2) / (h.tf + 1.2 * (0.25 + 0.75 * h.dl / s.avgdl))
      )::float8 AS score
      FROM hits h JOIN df ON df.term = h.term CROSS JOIN stats s
      GROUP BY h.id ORDER BY score DESC, h.id LIMIT ${limit}`)

    const count = row("assistantFiles.count", Total, (ownerId: string) =>
      sql`SELECT count(*) AS count FROM assistant_files WHERE owner_id = ${ownerId} AND expires_at > now()`)

    return {
      insert,
      putContent,
      owned,
      ownedMany,
      page,
      count: (ownerId: string) => Effect.map(count(ownerId), (found) => found?.count ?? 0),
      load,
      content: (fileId: string) => Effect.map(content(fileId), (found) => found?.content),
      chunk,
      chunksByIds,
      leadingChunks,
      rank,
      /** UPLOADED (or a retried PROCESSING) -> PROCESSING; false when the file is gone or already finished. */
      markProcessing: affected((fileId: string) => sql`
        UPDATE assistant_files SET status = 'PROCESSING', updated_at = now()
        WHERE id = ${fileId} AND status IN ('UPLOADED', 'PROCESSING') RETURNING id`),
      markFailed: exec((fileId: string, code: string, message: string) => sql`
        UPDATE assistant_files SET status = 'FAILED', failure_code = ${code}, failure_message = ${message}, updated_at = now()
        WHERE id = ${fileId}`),
      /** Replaces the file's chunks with a new generation and makes it READY, in the caller's transaction. */
      replaceChunks: (fileId: string, generation: number, chunks: ReadonlyArray<NewChunk>, pageCount: number) =>
        Effect.gen(function* () {
          yield* exec(() => sql`DELETE FROM assistant_file_chunks WHERE file_id = ${fileId}`)()
          for (const chunk of chunks) {
            yield* exec(() => sql`
              INSERT INTO assistant_file_chunks (id, file_id, generation, ordinal, heading, heading_path, start_page, end_page, content,
                word_count, search_vector)
              VALUES (${chunk.id}, ${fileId}, ${generation}, ${chunk.ordinal}, ${chunk.heading}, ${[...chunk.headingPath]}::text[],
                ${chunk.startPage}, ${chunk.endPage}, ${chunk.content}, ${chunk.wordCount},
                to_tsvector('english', ${[...chunk.headingPath, chunk.content].join("\n")}))`)()
          }
          yield* exec(() => sql`
            UPDATE assistant_files SET status = 'READY', generation = ${generation}, chunk_count = ${chunks.length}, page_count = ${pageCount},
              failure_code = NULL, failure_message = NULL, updated_at = now()
            WHERE id = ${fileId}`)()
        }),
      /** Deletes the caller's file (content and chunks cascade); false when it is not theirs. */
      deleteOwned: affected((ownerId: string, fileId: string) =>
        sql`DELETE FROM assistant_files WHERE id = ${fileId} AND owner_id = ${ownerId} RETURNING id`),
      /** Deletes up to `limit` expired files (content and chunks cascade); answers their ids. */
      purgeExpired: rows("assistantFiles.purgeExpired", Id, (limit: number) => sql`
        DELETE FROM assistant_files WHERE id IN (
          SELECT id FROM assistant_files WHERE expires_at <= now() ORDER BY expires_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
        ) RETURNING id`)
    }
  })
}) {}
