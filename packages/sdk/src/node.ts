import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { basename } from "node:path"
import { Readable } from "node:stream"
import type { UploadOptions } from "./areas/sources"
import type { Source } from "./generated/openapi"

/** `@lore/sdk/node`: helpers that need Node's file system (the main entry runs in browsers too). */

/** What uploadFile needs of a client: any `createLoreClient(...)` result (typed structurally, so copies of the SDK mix). */
export interface Uploader {
  readonly sources: { upload(options: UploadOptions): Promise<Source> }
}

export interface UploadFileOptions extends Omit<UploadOptions, "file" | "size"> {
  /** Default: the path's base name. */
  readonly fileName?: string | undefined
}

/**
 * Uploads a file from disk, streamed (never read whole into memory), with the file's size as the
 * progress total: `await uploadFile(lore, "./handbook.pdf", { knowledgeSpaceId, onProgress })`.
 */
export const uploadFile = async (lore: Uploader, path: string, options: UploadFileOptions): Promise<Source> => {
  const info = await stat(path)
  if (!info.isFile()) throw new TypeError(`uploadFile: ${path} is not a file`)
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 })
  // If the upload fails before the body is read, close the file instead of leaving it open.
  try {
    return await lore.sources.upload({
      ...options,
      fileName: options.fileName ?? basename(path),
      file: Readable.toWeb(stream) as ReadableStream<Uint8Array>,
      size: info.size
    })
  } finally {
    stream.destroy()
  }
}
