import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../../http/Api"
import { asCaller } from "../../domain/Principal"
import { AssistantFiles } from "./Files"

/** The original bytes as a download: an attachment, never rendered inline (uploads may be HTML). */
const attachment = (bytes: Uint8Array, mediaType: string, fileName: string) => {
  const ascii = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return HttpServerResponse.uint8Array(bytes, {
    contentType: mediaType,
    headers: {
      "content-disposition": `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`,
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-store"
    }
  })
}

export const AssistantFilesHttp = HttpApiBuilder.group(LoreApi, "assistantFiles", (handlers) =>
  Effect.gen(function* () {
    const files = yield* AssistantFiles
    return handlers
      .handle("listAssistantFiles", ({ urlParams }) => asCaller((me) => files.list(me, urlParams)))
      .handle("uploadAssistantFile", ({ payload }) =>
        asCaller((me) => files.upload(me, { path: payload.file.path, name: payload.file.name, contentType: payload.file.contentType }))
      )
      .handle("getAssistantFile", ({ path }) => asCaller((me) => files.get(me, path.fileId)))
      .handle("deleteAssistantFile", ({ path }) => asCaller((me) => files.remove(me, path.fileId)))
      .handle("getAssistantFileContent", ({ path }) =>
        asCaller((me) => Effect.map(files.content(me, path.fileId), ({ file, bytes }) => attachment(bytes, file.mediaType, file.fileName)))
      )
      .handle("getAssistantFileChunk", ({ path, urlParams }) => asCaller((me) => files.chunk(me, path.fileId, path.chunkId, urlParams.generation)))
  })
)
