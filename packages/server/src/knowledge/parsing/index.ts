/**
 * Document parsing and chunking for ingestion: detect what an upload is, parse it into headings
 * and text blocks (with pages where the format has them), and cut those into stable,
 * heading- and page-aware chunks. Pure functions over bytes: no database, no Effect services.
 */
export { chunkDocument, chunkId } from "./chunk"
export { detectMediaType } from "./detect"
export { parseDocument, parseDocumentEffect } from "./parse"
export {
  DOCX_MEDIA_TYPE,
  DocumentParseError,
  SupportedMediaTypes,
  type Block,
  type Chunk,
  type ChunkOptions,
  type MediaTypeDetection,
  type ParsedDocument,
  type ParseFailureCode,
  type ParseOptions,
  type ParseOutcome,
  type SupportedMediaType
} from "./types"
