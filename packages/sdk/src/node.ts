import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { basename } from "node:path"
import { Readable } from "node:stream"
import type { EvidenceUploadOptions } from "./areas/assistantEvidence"
import type { AssistantFileUploadOptions } from "./areas/assistantFiles"
import type { UploadOptions } from "./areas/sources"
import type { AssistantFile, EvidenceBinding, Source } from "./generated/openapi"

/** `@lore/sdk/node`: helpers that need Node's file system (the main entry runs in browsers too). */

/**
 * Streams the file at `path` (never read whole into memory) to `upload`, with its size as the progress total
 * and its base name as the default file name; the file is closed however the upload ends.
 */
const fromDisk = async <T>(operation: string, path: string, fileName: string | undefined, upload: (file: { fileName: string; file: ReadableStream<Uint8Array>; size: number }) => Promise<T>): Promise<T> => {
  const info = await stat(path)
  if (!info.isFile()) throw new TypeError(`${operation}: ${path} is not a file`)
  const stream = createReadStream(path, { highWaterMark: 64 * 1024 })
  try {
    return await upload({ fileName: fileName ?? basename(path), file: Readable.toWeb(stream) as ReadableStream<Uint8Array>, size: info.size })
  } finally {
    stream.destroy()
  }
}

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
  return fromDisk("uploadFile", path, options.fileName, (file) => lore.sources.upload({ ...options, ...file }))
}

/** What uploadAssistantFile needs of a client (typed structurally, like Uploader). */
export interface AssistantFileUploader {
  readonly assistant: { readonly files: { upload(options: AssistantFileUploadOptions): Promise<AssistantFile> } }
}

export interface UploadAssistantFileOptions extends Omit<AssistantFileUploadOptions, "file" | "size"> {
  /** Default: the path's base name. */
  readonly fileName?: string | undefined
}

/**
 * Uploads a file from disk to the caller's private assistant files, streamed, with the file's size as the
 * progress total: `await uploadAssistantFile(lore, "./notes.pdf", { onProgress })`.
 */
export const uploadAssistantFile = async (lore: AssistantFileUploader, path: string, options: UploadAssistantFileOptions = {}): Promise<AssistantFile> => {
  return fromDisk("uploadAssistantFile", path, options.fileName, (file) => lore.assistant.files.upload({ ...options, ...file }))
}

/** What uploadEvidence needs of a client (typed structurally, like Uploader). */
export interface EvidenceUploader {
  readonly assistant: { readonly evidence: { upload(options: EvidenceUploadOptions): Promise<EvidenceBinding> } }
}

export interface UploadEvidenceOptions extends Omit<EvidenceUploadOptions, "file" | "size"> {
  /** Default: the path's base name. */
  readonly fileName?: string | undefined
}

/**
 * Uploads a file from disk as evidence of a conversation, streamed, with the file's size as the progress
 * total: `await uploadEvidence(lore, "./memo.pdf", { conversationId, knowledgeSpaceId })`.
 */
export const uploadEvidence = async (lore: EvidenceUploader, path: string, options: UploadEvidenceOptions): Promise<EvidenceBinding> => {
  return fromDisk("uploadEvidence", path, options.fileName, (file) => lore.assistant.evidence.upload({ ...options, ...file }))
}
