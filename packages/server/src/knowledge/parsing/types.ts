import { Data } from "effect"

/** The document formats Lore ingests. Anything else is refused at upload with 415. */
export const SupportedMediaTypes = [
  "application/pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  "text/html",
  "text/markdown",
  "text/plain"
] as const
export type SupportedMediaType = (typeof SupportedMediaTypes)[number]

export const DOCX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document" satisfies SupportedMediaType

/**
 * What `detectMediaType` decided. `Unsupported` maps to 415 and `Empty` to 422 at the HTTP edge;
 * `code` and `detail` are ready to be put into the problem+json body.
 */
export type MediaTypeDetection =
  | { readonly _tag: "Supported"; readonly mediaType: SupportedMediaType }
  | {
      readonly _tag: "Unsupported"
      readonly code: "UNSUPPORTED_MEDIA_TYPE"
      /** Best guess at what the bytes are (e.g. "image/png"), for the message and logs. */
      readonly detected: string
      readonly detail: string
    }
  | { readonly _tag: "Empty"; readonly code: "EMPTY_FILE"; readonly detail: string }

/** One structural unit of a parsed document, in reading order. */
export interface Block {
  readonly kind: "heading" | "text"
  readonly text: string
  /** Heading level 1-6 (1 is outermost); only on headings. */
  readonly level?: number
  /** 1-based page number, when the format has pages (PDF, plain text with form feeds). */
  readonly page?: number
}

export interface ParsedDocument {
  readonly title?: string
  readonly blocks: ReadonlyArray<Block>
  /** True when `page` on blocks is meaningful (PDF, plain text with form feeds). */
  readonly paged: boolean
  /**
   * Physical pages when `paged`; otherwise an estimate of one page per 500 words (at least 1),
   * so throughput can be reported in pages for every format.
   */
  readonly pageCount: number
}

/**
 * Why a document could not be parsed. `message` is written for the person who uploaded the file
 * (it becomes the source's failureMessage); `code` becomes failureCode.
 */
export type ParseFailureCode =
  | "CORRUPT_FILE" // the bytes are not a readable document of the detected type
  | "ENCRYPTED" // password-protected PDF
  | "NO_TEXT" // readable, but nothing to index (e.g. a scanned PDF without a text layer)
  | "ARCHIVE_TOO_LARGE" // DOCX that would expand beyond the limits (decompression bomb guard)
  | "TIMEOUT" // parsing took longer than allowed
  | "LIMIT_EXCEEDED" // more pages, elements, nesting or memory than Lore reads in one document

export class DocumentParseError extends Data.TaggedError("DocumentParseError")<{
  readonly code: ParseFailureCode
  readonly message: string
  readonly mediaType: SupportedMediaType
}> {}

export type ParseOutcome =
  | { readonly ok: true; readonly document: ParsedDocument }
  | { readonly ok: false; readonly error: DocumentParseError }

export interface ParseOptions {
  /** Give up on a single document after this long (default 120 s). */
  readonly timeoutMs?: number
  /** DOCX: refuse archives whose entries would expand beyond this many bytes in total (default 200 MiB). */
  readonly maxUncompressedBytes?: number
  /** DOCX: refuse archives with more entries than this (default 10 000). */
  readonly maxArchiveEntries?: number
}

export interface Chunk {
  /** Stable: a UUID v5 of (sourceRevisionId, ordinal, sha-256 of text). */
  readonly id: string
  /** 0-based position in the document. */
  readonly ordinal: number
  readonly text: string
  /** Headings enclosing the chunk's first block, outermost first. */
  readonly headingPath: ReadonlyArray<string>
  /** The innermost heading of `headingPath`, or null before the first heading. */
  readonly heading: string | null
  readonly startPage: number | null
  readonly endPage: number | null
  readonly wordCount: number
  /** Hex sha-256 of `text` (handy for embedding caches). */
  readonly contentHash: string
}

export interface ChunkOptions {
  readonly sourceRevisionId: string
  /** Aim for chunks of about this many words (default 350). */
  readonly targetWords?: number
  /** Words repeated from the end of the previous chunk in the same section (default 50). */
  readonly overlapWords?: number
}
