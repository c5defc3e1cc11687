import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { created, IntegerParam, Query, Timestamp } from "../domain/Schemas"
import { Classification } from "../domain/Model"
import { KnowledgeSpaceNotFound } from "../access/Errors"
import { InvalidCursor, PayloadTooLarge } from "../domain/Errors"
import { authenticated } from "../domain/Security"
import { CitationNotFound, ClassificationAboveClearance, DeletionNotAllowed, EmptyFile, NotAContributor, SourceNotFound, UnsupportedMediaType } from "./Errors"

export const SourceStatus = Schema.Literal("PROCESSING", "READY", "ATTENTION").annotations({ identifier: "SourceStatus" })

export const SourceAudience = Schema.Struct({
  readers: Schema.Int.annotations({ description: "Members of the space whose clearance reaches the document's classification" }),
  spaceMembers: Schema.Int.annotations({ description: "Active users with at least viewer on the knowledge space" }),
  summary: Schema.String.annotations({ description: 'In words, e.g. "readable by 1 of 3 members of space general: CONFIDENTIAL needs clearance CONFIDENTIAL or RESTRICTED"' })
}).annotations({ identifier: "SourceAudience", description: "Who can read the document, answered on upload" })

export const Source = Schema.Struct({
  id: Schema.UUID,
  title: Schema.String,
  sourceSystem: Schema.String,
  aclAuthority: Schema.String,
  status: Schema.String.annotations({ description: "PROCESSING, READY or ATTENTION (DELETING while a deletion is purged)" }),
  classification: Classification,
  fileName: Schema.String,
  mediaType: Schema.String,
  contentLength: Schema.Int,
  failureCode: Schema.NullOr(Schema.String),
  failureMessage: Schema.NullOr(Schema.String),
  knowledgeAssetId: Schema.UUID,
  knowledgeAssetVersionId: Schema.UUID,
  versionNumber: Schema.Int,
  contentDigest: Schema.String,
  knowledgeSpaceId: Schema.UUID,
  knowledgeSpaceKey: Schema.String,
  knowledgeSpaceName: Schema.String,
  owningDepartmentName: Schema.NullOr(Schema.String),
  uploadedByName: Schema.NullOr(Schema.String),
  publicationComplete: Schema.Boolean,
  contentAvailable: Schema.Boolean,
  deletionAllowed: Schema.Boolean,
  pageCount: Schema.NullOr(Schema.Int),
  chunkCount: Schema.NullOr(Schema.Int),
  embeddingProfileKey: Schema.NullOr(Schema.String),
  embeddingProvider: Schema.NullOr(Schema.String),
  embeddingModel: Schema.NullOr(Schema.String),
  embeddingDimensions: Schema.NullOr(Schema.Int),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  audience: Schema.optional(SourceAudience)
}).annotations({ identifier: "Source" })

export const SourcePage = Schema.Struct({
  items: Schema.Array(Source),
  nextCursor: Schema.NullOr(Schema.String),
  pageSize: Schema.Int,
  total: Schema.Int,
  statusCounts: Schema.Struct({ processing: Schema.Int, ready: Schema.Int, attention: Schema.Int })
}).annotations({ identifier: "SourcePage" })

export const SourceDeletion = Schema.Struct({
  knowledgeAssetId: Schema.UUID,
  knowledgeAssetVersionId: Schema.UUID,
  normalizedRecordId: Schema.UUID,
  rawSourceObjectId: Schema.UUID,
  sourceAclSnapshotId: Schema.NullOr(Schema.UUID),
  status: Schema.Literal("PENDING", "COMPLETED").annotations({ identifier: "SourceDeletionStatus" })
}).annotations({ identifier: "SourceDeletion" })

export const SourceQuery = Query({
  knowledgeSpaceId: Schema.optional(Schema.UUID),
  classification: Schema.optional(Classification),
  status: Schema.optional(SourceStatus),
  q: Schema.optional(Schema.String),
  cursor: Schema.optional(Schema.String),
  pageSize: Schema.optional(IntegerParam(1, 200))
})

export const UploadQuery = Query({
  knowledgeSpaceId: Schema.UUID,
  classification: Schema.optionalWith(Classification, { default: () => "CONFIDENTIAL" as const }),
  title: Schema.optional(Schema.String.pipe(Schema.trimmed(), Schema.minLength(1), Schema.maxLength(300)))
})

export const Upload = HttpApiSchema.Multipart(Schema.Struct({ file: Multipart.SingleFileSchema }))

/** Search limits (docs/decisions.md "Long questions and paging of search results"). */
export const SEARCH_MAX_QUERY_CHARS = 10_000
export const SEARCH_MAX_LIMIT = 100
/** Results are ranked this deep at most: offset + limit never passes it. */
export const SEARCH_MAX_DEPTH = 500

export const Evidence = Schema.Struct({
  citationId: Schema.UUID,
  knowledgeAssetId: Schema.UUID,
  knowledgeAssetVersionId: Schema.UUID,
  knowledgeSpaceId: Schema.UUID,
  title: Schema.String,
  content: Schema.String,
  highlights: Schema.Array(Schema.String).annotations({ description: "Query terms found in the passage, as they appear in it" }),
  sourceUri: Schema.String,
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  heading: Schema.NullOr(Schema.String),
  headingPath: Schema.Array(Schema.String),
  classification: Classification,
  relevanceScore: Schema.Number,
  lexicalRank: Schema.NullOr(Schema.Int),
  vectorRank: Schema.NullOr(Schema.Int)
}).annotations({ identifier: "Evidence" })

export const SearchResult = Schema.Struct({
  requestId: Schema.String,
  mode: Schema.Literal("lexical", "hybrid").annotations({ identifier: "SearchMode", description: "hybrid when an embedding model is configured" }),
  evidence: Schema.Array(Evidence),
  nextOffset: Schema.NullOr(Schema.Int).annotations({
    description: `The offset of the next page, or null when there is none or it would pass rank ${SEARCH_MAX_DEPTH}`
  })
}).annotations({ identifier: "SearchResult" })

export const SearchQuery = Query({
  // Not trimmed-or-refused: a pasted paragraph often ends with a newline.
  q: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(SEARCH_MAX_QUERY_CHARS), Schema.pattern(/\S/, { message: () => "must contain a word" })).annotations({
    description: `A question or keywords, up to ${SEARCH_MAX_QUERY_CHARS} characters; a long one is searched by its most informative terms`
  }),
  knowledgeSpaceId: Schema.optional(Schema.UUID),
  classification: Schema.optional(Classification),
  limit: Schema.optional(IntegerParam(1, SEARCH_MAX_LIMIT)),
  offset: Schema.optional(IntegerParam(0, SEARCH_MAX_DEPTH - 1))
})

export const CatalogEntry = Schema.Struct({
  knowledgeAssetId: Schema.UUID,
  knowledgeVersionId: Schema.UUID,
  versionNumber: Schema.Int,
  knowledgeSpaceId: Schema.UUID,
  title: Schema.String,
  language: Schema.String,
  classification: Classification,
  contentDigest: Schema.String,
  mediaType: Schema.String,
  updatedAt: Timestamp
}).annotations({ identifier: "CatalogEntry" })

export const CatalogQuery = Query({
  knowledgeSpaceId: Schema.optional(Schema.UUID),
  classification: Schema.optional(Classification)
})

export const CitationExcerpt = Schema.Struct({
  citationId: Schema.UUID,
  title: Schema.String,
  heading: Schema.NullOr(Schema.String),
  startPage: Schema.NullOr(Schema.Int),
  endPage: Schema.NullOr(Schema.Int),
  excerpt: Schema.String,
  highlightStart: Schema.optional(Schema.Int).annotations({ description: "Offset (UTF-16 code units) in excerpt where the cited passage starts" }),
  highlightEnd: Schema.optional(Schema.Int).annotations({ description: "Offset in excerpt just after the cited passage (before any truncation mark)" }),
  truncated: Schema.Boolean,
  presentationKind: Schema.Literal("PDF", "DOCUMENT", "HTML", "MARKDOWN", "TEXT").annotations({ identifier: "PresentationKind" })
}).annotations({ identifier: "CitationExcerpt" })

const SourcePath = Schema.Struct({ sourceId: Schema.UUID })
const CitationPath = Schema.Struct({ citationId: Schema.UUID })
const Content = HttpApiSchema.withEncoding(Schema.Uint8ArrayFromSelf, { kind: "Uint8Array", contentType: "application/octet-stream" })

export class SourcesApi extends HttpApiGroup.make("sources")
  .add(HttpApiEndpoint.get("listSources", "/sources").setUrlParams(SourceQuery).addSuccess(SourcePage).addError(InvalidCursor).pipe(authenticated))
  .add(
    HttpApiEndpoint.post("uploadSource", "/sources")
      .setUrlParams(UploadQuery)
      .setPayload(Upload)
      .addSuccess(created(Source))
      .addError(KnowledgeSpaceNotFound)
      .addError(NotAContributor)
      .addError(ClassificationAboveClearance)
      .addError(UnsupportedMediaType)
      .addError(EmptyFile)
      .addError(PayloadTooLarge)
      .addError(SourceNotFound)
      .pipe(authenticated)
  )
  .add(HttpApiEndpoint.get("getSource", "/sources/:sourceId").setPath(SourcePath).addSuccess(Source).addError(SourceNotFound).pipe(authenticated))
  .add(
    HttpApiEndpoint.get("getSourceContent", "/sources/:sourceId/content")
      .setPath(SourcePath)
      .addSuccess(Content.annotations({ description: "The original bytes, with their media type" }))
      .addError(SourceNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.del("deleteSource", "/sources/:sourceId")
      .setPath(SourcePath)
      .addSuccess(SourceDeletion)
      .addError(SourceNotFound)
      .addError(DeletionNotAllowed)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Sources")
  .annotate(OpenApi.Description, "Uploaded documents: durable ingestion into permission-filtered knowledge") {}

export class KnowledgeApi extends HttpApiGroup.make("knowledge")
  .add(HttpApiEndpoint.get("search", "/knowledge/search").setUrlParams(SearchQuery).addSuccess(SearchResult).pipe(authenticated))
  .add(HttpApiEndpoint.get("catalog", "/knowledge/catalog").setUrlParams(CatalogQuery).addSuccess(Schema.Array(CatalogEntry)).pipe(authenticated))
  .add(
    HttpApiEndpoint.get("getCitationExcerpt", "/citations/:citationId/excerpt")
      .setPath(CitationPath)
      .addSuccess(CitationExcerpt)
      .addError(CitationNotFound)
      .pipe(authenticated)
  )
  .add(
    HttpApiEndpoint.get("getCitationContent", "/citations/:citationId/content")
      .setPath(CitationPath)
      .addSuccess(Content.annotations({ description: "The cited document's original bytes; X-Lore-Start-Page tells where the passage begins" }))
      .addError(CitationNotFound)
      .pipe(authenticated)
  )
  .annotate(OpenApi.Title, "Knowledge")
  .annotate(OpenApi.Description, "Search, catalog and citations, filtered to what the caller may read") {}
