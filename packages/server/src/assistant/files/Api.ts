import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { PayloadTooLarge } from "../../domain/Errors"
import { created, IntegerParam, Query, Timestamp } from "../../domain/Schemas"
import { authenticated } from "../../domain/Security"
import { AssistantFileNotFound, FileChunkNotFound } from "./Errors"
import { RateLimitExceeded } from "../RateLimitErrors"

/** UPLOADED -> PROCESSING -> READY | FAILED (see docs/decisions.md, "Assistant files"). */
export const AssistantFileStatus = Schema.Literal("UPLOADED", "PROCESSING", "READY", "FAILED").annotations({ identifier: "AssistantFileStatus" })
export type AssistantFileStatus = typeof AssistantFileStatus.Type

export const AssistantFile = Schema.Struct({
  id: Schema.UUID,
  fileName: Schema.String,
  mediaType: Schema.String.annotations({ description: "What the bytes are, by content (the declared type only separates text formats)" }),
  contentLength: Schema.Int,
  status: AssistantFileStatus,
  failureCode: Schema.NullOr(Schema.String).annotations({
    description: "When FAILED: UNSUPPORTED_MEDIA_TYPE, EMPTY_FILE, CORRUPT_FILE, ENCRYPTED, NO_TEXT, ARCHIVE_TOO_LARGE, TIMEOUT or PROCESSING_FAILED"
  }),
  failureMessage: Schema.NullOr(Schema.String).annotations({ description: "When FAILED: what happened and what to do, for the uploader" }),
  generation: Schema.Int.annotations({ description: "Processing generation of the current chunks (0 before the first)" }),
  pageCount: Schema.NullOr(Schema.Int),
  chunkCount: Schema.NullOr(Schema.Int),
  expiresAt: Timestamp.annotations({ description: "After this the file is gone (LORE_ASSISTANT_FILE_RETENTION after upload)" }),
  createdAt: Timestamp
}).annotations({ identifier: "AssistantFile" })

export const FilePage = Schema.Struct({
  items: Schema.Array(AssistantFile),
  page: Schema.Int,
  hasMore: Schema.Boolean
}).annotations({ identifier: "FilePage" })

export const FileChunk = Schema.Struct({
  id: Schema.UUID,
  fileId: Schema.UUID,
  generation: Schema.Int,
  title: Schema.String.annotations({ description: "The file's name" }),
  heading: Schema.NullOr(Schema.String),
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  content: Schema.String
}).annotations({ identifier: "FileChunk" })

export const FilePageQuery = Query({
  page: Schema.optionalWith(IntegerParam(0, 1_000_000), { default: () => 0 }),
  limit: Schema.optionalWith(IntegerParam(1, 100), { default: () => 20 })
})

const FilePath = Schema.Struct({ fileId: Schema.UUID })
const ChunkPath = Schema.Struct({ fileId: Schema.UUID, chunkId: Schema.UUID })
const ChunkQuery = Query({
  generation: Schema.optional(IntegerParam(0, Number.MAX_SAFE_INTEGER)).annotations({
    description: "The generation the chunk id came from; a chunk of an older generation is 404"
  })
})
const FileUpload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }))
const Content = HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "application/octet-stream" })

export class AssistantFilesApi extends HttpApiGroup.make("assistantFiles")
  .add(HttpApiEndpoint.get("listAssistantFiles", "/assistant/files").setUrlParams(FilePageQuery).addSuccess(FilePage).pipe(authenticated))
  .add(
    HttpApiEndpoint.post("uploadAssistantFile", "/assistant/files")
      .setPayload(FileUpload)
      .addSuccess(created(AssistantFile))
      .addError(PayloadTooLarge)
      .addError(RateLimitExceeded)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getAssistantFile", "/assistant/files/:fileId").setPath(FilePath).addSuccess(AssistantFile).addError(AssistantFileNotFound).pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("deleteAssistantFile", "/assistant/files/:fileId")
      .setPath(FilePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(AssistantFileNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getAssistantFileContent", "/assistant/files/:fileId/content")
      .setPath(FilePath)
      .addSuccess(Content.annotations({ description: "The original bytes, with their media type, as an attachment" }))
      .addError(AssistantFileNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getAssistantFileChunk", "/assistant/files/:fileId/chunks/:chunkId")
      .setPath(ChunkPath)
      .setUrlParams(ChunkQuery)
      .addSuccess(FileChunk)
      .addError(AssistantFileNotFound)
      .addError(FileChunkNotFound)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Assistant files")
  .annotate(OpenApi.Description, "Documents a user attaches to their own chats: private to them, never in the shared knowledge index, deleted when they expire") {}
