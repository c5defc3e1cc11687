import type { SkillLimits } from "../Config"
import type { PackageFile, SkillProblem } from "../assets/SkillArchive"
import { checkSkill, inspectZip, type SkillCheck } from "../assets/SkillFormat"
import { chunkDocument } from "../knowledge/parsing/chunk"
import { parseDocument } from "../knowledge/parsing/parse"
import type { Chunk, ParseFailureCode, ParseOptions, SupportedMediaType } from "../knowledge/parsing/types"

/**
 * The work a parse worker does, as plain data both ways (structured clone: no classes, no functions), and the
 * one function that does it, used by the worker thread and, only when the pool cannot start, in process.
 */

export type ParseTask =
  | { readonly kind: "ping" }
  /** An uploaded skill package (zip). */
  | { readonly kind: "skill-zip"; readonly bytes: Uint8Array; readonly limits: SkillLimits }
  /** A skill's files read from elsewhere (a repository folder). */
  | { readonly kind: "skill-files"; readonly files: ReadonlyArray<PackageFile>; readonly directory: string | null; readonly limits: SkillLimits }
  /** An uploaded document: parsed and cut into chunks. */
  | {
      readonly kind: "document"
      readonly bytes: Uint8Array
      readonly mediaType: SupportedMediaType
      readonly options: ParseOptions
      readonly sourceRevisionId: string
    }

export type DocumentResult =
  | { readonly ok: true; readonly pageCount: number; readonly chunks: ReadonlyArray<Chunk> }
  | { readonly ok: false; readonly code: ParseFailureCode; readonly message: string }

export type ParseResult =
  | { readonly kind: "ping"; readonly pong: true }
  | { readonly kind: "skill"; readonly check: SkillCheck }
  | { readonly kind: "document"; readonly result: DocumentResult }

export type { SkillProblem }

export const runTask = async (task: ParseTask): Promise<ParseResult> => {
  switch (task.kind) {
    case "ping":
      return { kind: "ping", pong: true }
    case "skill-zip": {
      return { kind: "skill", check: inspectZip(task.bytes, task.limits) }
    }
    case "skill-files": {
      return { kind: "skill", check: checkSkill(task.files, task.directory, task.limits) }
    }
    case "document": {
      const outcome = await parseDocument(task.bytes, task.mediaType, task.options)
      if (!outcome.ok) return { kind: "document", result: { ok: false, code: outcome.error.code, message: outcome.error.message } }
      const chunks = chunkDocument(outcome.document, { sourceRevisionId: task.sourceRevisionId })
      return { kind: "document", result: { ok: true, pageCount: outcome.document.pageCount, chunks } }
    }
  }
}
