import { Effect } from "effect"
import { ArchiveRefused, parseDocx } from "./docx"
import { parseHtml } from "./html"
import { ParseLimitExceeded } from "./limits"
import { parseMarkdown } from "./markdown"
import { parsePdf, PdfDeadlineExceeded } from "./pdf"
import { parsePlainText } from "./plaintext"
import { countWords } from "./text"
import {
  DOCX_MEDIA_TYPE,
  DocumentParseError,
  type ParsedDocument,
  type ParseFailureCode,
  type ParseOptions,
  type ParseOutcome,
  type SupportedMediaType
} from "./types"

const DEFAULT_TIMEOUT_MS = 120_000
const DEFAULT_MAX_UNCOMPRESSED_BYTES = 200 * 1024 * 1024
const DEFAULT_MAX_ARCHIVE_ENTRIES = 10_000
const WORDS_PER_ESTIMATED_PAGE = 500

/**
 * Parses a document of a detected media type into headings and text blocks. Never rejects:
 * corrupt, encrypted, empty, oversized (DOCX) or slow input comes back as `{ ok: false, error }`
 * with a message the uploader can act on.
 */
export const parseDocument = async (bytes: Uint8Array, mediaType: SupportedMediaType, options: ParseOptions = {}): Promise<ParseOutcome> => {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<ParseOutcome>((resolve) => {
    timer = setTimeout(() => resolve(failure(mediaType, "TIMEOUT", timeoutMessage(timeoutMs))), timeoutMs)
  })
  try {
    return await Promise.race([attempt(bytes, mediaType, options, Date.now() + timeoutMs), timeout])
  } finally {
    clearTimeout(timer)
  }
}

/** `parseDocument` for Effect callers: the failure in the error channel. */
export const parseDocumentEffect = (
  bytes: Uint8Array,
  mediaType: SupportedMediaType,
  options?: ParseOptions
): Effect.Effect<ParsedDocument, DocumentParseError> =>
  Effect.flatMap(
    Effect.promise(() => parseDocument(bytes, mediaType, options)),
    (outcome) => (outcome.ok ? Effect.succeed(outcome.document) : Effect.fail(outcome.error))
  )

const attempt = async (bytes: Uint8Array, mediaType: SupportedMediaType, options: ParseOptions, deadline: number): Promise<ParseOutcome> => {
  try {
    const document = await parseByType(bytes, mediaType, options, deadline)
    if (document.blocks.length === 0) {
      return failure(
        mediaType,
        "NO_TEXT",
        mediaType === "application/pdf"
          ? "No text could be found in the PDF. It is probably a scanned image: run it through text recognition (OCR) and upload the result."
          : "The document contains no text to index."
      )
    }
    return { ok: true, document }
  } catch (cause) {
    return { ok: false, error: describe(mediaType, cause, options) }
  }
}

const parseByType = async (bytes: Uint8Array, mediaType: SupportedMediaType, options: ParseOptions, deadline: number): Promise<ParsedDocument> => {
  switch (mediaType) {
    case "application/pdf": {
      const { title, blocks, pageCount } = await parsePdf(bytes, deadline)
      return withTitle(title, { blocks, paged: true, pageCount })
    }
    case "text/plain": {
      const { blocks, pages } = parsePlainText(bytes)
      return pages === undefined ? unpaged(undefined, blocks) : { blocks, paged: true, pageCount: pages }
    }
    case "text/html": {
      const { title, blocks } = parseHtml(bytes)
      return unpaged(title, blocks)
    }
    case "text/markdown": {
      const { title, blocks } = parseMarkdown(bytes)
      return unpaged(title, blocks)
    }
    case DOCX_MEDIA_TYPE: {
      const { title, blocks } = await parseDocx(bytes, {
        maxUncompressedBytes: options.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES,
        maxEntries: options.maxArchiveEntries ?? DEFAULT_MAX_ARCHIVE_ENTRIES
      })
      return unpaged(title, blocks)
    }
  }
}

const withTitle = (title: string | undefined, document: ParsedDocument): ParsedDocument => (title === undefined ? document : { title, ...document })

const unpaged = (title: string | undefined, blocks: ParsedDocument["blocks"]): ParsedDocument => {
  const words = blocks.reduce((n, block) => n + countWords(block.text), 0)
  return withTitle(title, { blocks, paged: false, pageCount: Math.max(1, Math.ceil(words / WORDS_PER_ESTIMATED_PAGE)) })
}

const failure = (mediaType: SupportedMediaType, code: ParseFailureCode, message: string): ParseOutcome => ({
  ok: false,
  error: new DocumentParseError({ code, message, mediaType })
})

const timeoutMessage = (ms: number) =>
  `Reading the document took longer than ${Math.round(ms / 1000)} seconds, so it was stopped. Split it into smaller files and upload those.`

const reasonOf = (cause: unknown): string => {
  const text = cause instanceof Error ? cause.message : String(cause)
  return text.trim().replace(/\.$/, "").slice(0, 300) || "unknown error"
}

const describe = (mediaType: SupportedMediaType, cause: unknown, options: ParseOptions): DocumentParseError => {
  const error = (code: ParseFailureCode, message: string) => new DocumentParseError({ code, message, mediaType })
  if (cause instanceof PdfDeadlineExceeded) return error("TIMEOUT", timeoutMessage(options.timeoutMs ?? DEFAULT_TIMEOUT_MS))
  if (cause instanceof ParseLimitExceeded) return error("LIMIT_EXCEEDED", `The document was refused because ${cause.what}. Split it into smaller files and upload those.`)
  switch (mediaType) {
    case "application/pdf": {
      const name = cause instanceof Error ? cause.name : ""
      if (name === "PasswordException") {
        return error("ENCRYPTED", "The PDF is password-protected. Remove the password (or print it to a new PDF) and upload it again.")
      }
      if (name === "InvalidPDFException") {
        return error(
          "CORRUPT_FILE",
          `The PDF could not be read: its structure is damaged or incomplete (${reasonOf(cause)}). If it was cut off during download or export, upload a complete copy.`
        )
      }
      return error("CORRUPT_FILE", `The PDF could not be read: ${reasonOf(cause)}. Open it in a PDF viewer, save or export it again, and upload the new copy.`)
    }
    case DOCX_MEDIA_TYPE: {
      if (cause instanceof ArchiveRefused && cause.tooLarge) {
        return error(
          "ARCHIVE_TOO_LARGE",
          `The Word document was refused because ${cause.message}; this limit protects the server from decompression bombs. If the file is genuine, remove large embedded objects or split it, and upload it again.`
        )
      }
      return error("CORRUPT_FILE", `The Word document could not be read: ${reasonOf(cause)}. Open it in Word, save it again as .docx, and upload the new copy.`)
    }
    default:
      return error("CORRUPT_FILE", `The document could not be read: ${reasonOf(cause)}.`)
  }
}
