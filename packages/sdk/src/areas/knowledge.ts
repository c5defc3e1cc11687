import type { LoreFetchClient } from "../fetchClient"
import { download, type DownloadedFile } from "../download"
import { toQuery } from "../query"
import { unwrap } from "../response"
import type { CatalogEntry, CitationExcerpt, Evidence, SearchResult } from "../generated/openapi"
import type { QueryOf } from "../operations"

/**
 * `q` (1..10,000 characters; a long question is searched by its most informative terms), and optionally
 * `knowledgeSpaceId`, `classification`, `limit` (1..100) and `offset` (paging; results stop at rank 500).
 */
export type SearchQuery = QueryOf<"search">
export type CatalogQuery = QueryOf<"catalog">

/** Search and catalog, filtered by the server to what the caller may read. */
export class KnowledgeArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** Ranked passages (evidence) with citation ids; `mode` says lexical or hybrid. */
  async search(query: SearchQuery): Promise<SearchResult> {
    return unwrap(this.client.GET("/api/knowledge/search", { params: { query: { ...toQuery(query), q: query.q } } }))
  }

  /** Every result, page after page (`limit` per request), lazily: `for await (const hit of lore.knowledge.searchAll({ q }))`. */
  async *searchAll(query: Omit<SearchQuery, "offset">): AsyncGenerator<Evidence, void, undefined> {
    let offset: number | null = 0
    while (offset !== null) {
      const page: SearchResult = await this.search({ ...query, offset })
      yield* page.evidence
      offset = page.nextOffset !== null && page.nextOffset > offset ? page.nextOffset : null
    }
  }

  /** The latest visible version of each knowledge asset. */
  async catalog(query: CatalogQuery = {}): Promise<Array<CatalogEntry>> {
    return unwrap(this.client.GET("/api/knowledge/catalog", { params: { query: toQuery(query) } }))
  }
}

/** A cited document's bytes, and the page where the cited passage begins (PDFs). */
export interface CitedFile extends DownloadedFile {
  readonly startPage: number | null
}

/** What a citation id from search or the assistant points at; 404 once the caller may no longer see it. */
export class CitationsArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** The cited passage with surrounding context. */
  excerpt(citationId: string): Promise<CitationExcerpt> {
    return unwrap(this.client.GET("/api/citations/{citationId}/excerpt", { params: { path: { citationId } } }))
  }

  async content(citationId: string): Promise<CitedFile> {
    const { bytes, mediaType, fileName, response } = await download(
      this.client.GET("/api/citations/{citationId}/content", { params: { path: { citationId } }, parseAs: "arrayBuffer", headers: { accept: "*/*" } })
    )
    const page = response.headers.get("x-lore-start-page")
    return { bytes, mediaType, fileName, startPage: page ? Number(page) : null }
  }
}
