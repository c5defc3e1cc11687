import canonicalize from "canonicalize"
import { createHash } from "node:crypto"
import type { DraftContent } from "./AssetsRepo"

/**
 * What a revision's digest covers: title, summary, classification, schemaVersion and the payload parsed (so
 * whitespace in the payload text does not change the digest, while any change of its content does).
 */
export const digestedContent = (content: DraftContent) => ({
  title: content.title,
  summary: content.summary,
  classification: content.classification,
  schemaVersion: content.schemaVersion,
  payload: JSON.parse(content.payload) as unknown
})

/** RFC 8785 canonical JSON (JCS), the text the digest hashes. */
export const canonicalJson = (value: unknown) => canonicalize(value) ?? "null"

/** `sha256:` + lowercase hex over the canonical JSON: clients can recompute it from the content they receive. */
export const sha256Digest = (value: unknown) => `sha256:${createHash("sha256").update(canonicalJson(value), "utf8").digest("hex")}`

export const contentDigest = (content: DraftContent) => sha256Digest(digestedContent(content))
