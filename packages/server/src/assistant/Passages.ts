import type { CitationKind, CitationRow } from "./ConversationsRepo"
import type { FilePassage } from "./files/Files"
import type { Evidence } from "./Retrieval"

/** A passage an answer is given: a knowledge passage the caller may read, or a chunk of their own file. */
export interface ChatPassage {
  readonly kind: CitationKind
  /** The knowledge chunk (what /api/citations/{id} takes), or the file's chunk. */
  readonly citationId: string
  /** The document version, or the file. */
  readonly sourceId: string
  readonly knowledgeAssetId: string | null
  readonly fileGeneration: number | null
  readonly title: string
  readonly heading: string | null
  readonly startPage: number | null
  readonly endPage: number | null
  readonly content: string
  readonly mediaType: string
}

export const knowledgePassage = (evidence: Evidence): ChatPassage => ({
  kind: "KNOWLEDGE",
  citationId: evidence.citationId,
  sourceId: evidence.knowledgeAssetVersionId,
  knowledgeAssetId: evidence.knowledgeAssetId,
  fileGeneration: null,
  title: evidence.title,
  heading: evidence.heading,
  startPage: evidence.startPage,
  endPage: evidence.endPage,
  content: evidence.content,
  mediaType: evidence.mediaType
})

export const filePassage = (passage: FilePassage): ChatPassage => ({
  kind: "FILE",
  citationId: passage.chunkId,
  sourceId: passage.fileId,
  knowledgeAssetId: null,
  fileGeneration: passage.generation,
  title: passage.fileName,
  heading: passage.heading,
  startPage: passage.startPage,
  endPage: passage.endPage,
  content: passage.content,
  mediaType: passage.mediaType
})

export const citationOf = (passage: ChatPassage, citationNumber: number): CitationRow => ({
  citationNumber,
  kind: passage.kind,
  citationId: passage.citationId,
  sourceId: passage.sourceId,
  knowledgeAssetId: passage.knowledgeAssetId,
  fileGeneration: passage.fileGeneration,
  title: passage.title,
  heading: passage.heading,
  startPage: passage.startPage,
  endPage: passage.endPage
})

/** Where a citation opens: the knowledge citation endpoints, or the caller's own file and its chunk. */
export const citationLinks = (citation: CitationRow) =>
  citation.kind === "FILE"
    ? {
      excerptUrl: `/api/assistant/files/${citation.sourceId}/chunks/${citation.citationId}${citation.fileGeneration === null ? "" : `?generation=${citation.fileGeneration}`}`,
      contentUrl: `/api/assistant/files/${citation.sourceId}/content`
    }
    : { excerptUrl: `/api/citations/${citation.citationId}/excerpt`, contentUrl: `/api/citations/${citation.citationId}/content` }
