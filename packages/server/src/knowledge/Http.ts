import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { asCaller } from "../domain/Principal"
import { KnowledgeSearch } from "./Search"
import { Sources } from "./Sources"

/** The original bytes with their media type; the file name survives non-ASCII (RFC 6266/5987). */
const fileResponse = (bytes: Uint8Array, mediaType: string, fileName: string, headers: Record<string, string> = {}) => {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return HttpServerResponse.uint8Array(bytes, {
    contentType: mediaType,
    headers: {
      "content-disposition": `inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store",
      ...headers
    }
  })
}


export const SourcesHttp = HttpApiBuilder.group(LoreApi, "sources", (handlers) =>
  Effect.gen(function* () {
    const sources = yield* Sources
    return handlers
      .handle("listSources", ({ urlParams }) => asCaller((me) => sources.list(me, urlParams)))
      .handle("uploadSource", ({ payload, urlParams }) =>
        asCaller((me) => sources.upload(me, urlParams, { path: payload.file.path, name: payload.file.name, contentType: payload.file.contentType }))
      )
      .handle("getSource", ({ path }) => asCaller((me) => sources.get(me, path.sourceId)))
      .handle("getSourceContent", ({ path }) =>
        asCaller((me) => Effect.map(sources.content(me, path.sourceId), ({ row, bytes }) => fileResponse(bytes, row.mediaType, row.fileName)))
      )
      .handle("deleteSource", ({ path }) => asCaller((me) => sources.remove(me, path.sourceId)))
  })
)

export const KnowledgeHttp = HttpApiBuilder.group(LoreApi, "knowledge", (handlers) =>
  Effect.gen(function* () {
    const knowledge = yield* KnowledgeSearch
    return handlers
      .handle("search", ({ urlParams }) => asCaller((me) => knowledge.search(me, urlParams)))
      .handle("catalog", ({ urlParams }) => asCaller((me) => knowledge.catalog(me, urlParams)))
      .handle("getCitationExcerpt", ({ path }) => asCaller((me) => knowledge.excerpt(me, path.citationId)))
      .handle("getCitationContent", ({ path }) =>
        asCaller((me) =>
          Effect.map(knowledge.citationContent(me, path.citationId), ({ source, bytes, startPage }) =>
            fileResponse(bytes, source.mediaType, source.fileName, startPage === null ? {} : { "x-lore-start-page": String(startPage) })
          )
        )
      )
  })
)
