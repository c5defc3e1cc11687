import { Effect } from "effect"
import { cursorCodec } from "../db/Cursor"
import { quoteInput } from "../domain/Echo"
import { unzipSync } from "fflate"
import type { Principal } from "../domain/Principal"
import { Assets } from "../assets/Assets"
import { Skills } from "../assets/skills/Skills"
import { AssetTools } from "../assets/Tools"
import { KnowledgeSearch } from "../knowledge/Search"
import { Sources } from "../knowledge/Sources"

/**
 * Resources by `lore://` URI, each read through the caller's access:
 * - `lore://documents/{sourceId}`: a knowledge document (the current version of each one the caller may read is
 *   listed; any version they may read can be read), as text for textual media types, else as a base64 blob;
 * - `lore://skills/{namespace}/{slug}/{version}/{path}`: a file of a released skill package (SKILL.md and the
 *   rest), read from the canonical package whose digest the manifest names (audited as asset.skill.download).
 *   The latest available release of each skill the caller may use is listed.
 */


const offsetOf = (text: string) => {
  const offset = Number.parseInt(text, 10)
  return Number.isSafeInteger(offset) && offset >= 0 && String(offset) === text ? offset : undefined
}

/** resources/list's cursor: the offset of the next page in the listing. */
export const resourcesCursor = cursorCodec<number>(String, offsetOf)

/** The offset a cursor names; cursors given out before the shared codec (the bare decimal offset) still read. */
export const resourcesOffset = (cursor: string): number | undefined => resourcesCursor.decode(cursor) ?? offsetOf(cursor)

export const RESOURCE_NOT_FOUND = -32002
export const DOCUMENT_TEMPLATE = "lore://documents/{sourceId}"
export const SKILL_FILE_TEMPLATE = "lore://skills/{namespace}/{slug}/{version}/{+path}"
/** resources/list pages: this many resources each, the cursor being the next position. */
export const RESOURCES_PAGE = 500

const textual = (mediaType: string) =>
  mediaType.startsWith("text/") || ["application/json", "application/yaml", "application/x-yaml", "application/xml", "application/javascript", "application/x-sh"].includes(mediaType)

const byExtension: Record<string, string> = {
  md: "text/markdown", txt: "text/plain", py: "text/x-python", sh: "application/x-sh", js: "application/javascript", ts: "text/x-typescript",
  json: "application/json", yaml: "application/yaml", yml: "application/yaml", html: "text/html", csv: "text/csv", xml: "application/xml",
  pdf: "application/pdf", png: "image/png", jpg: "image/jpeg", jpeg: "image/jpeg", zip: "application/zip"
}
const mediaTypeOf = (path: string) => byExtension[path.slice(path.lastIndexOf(".") + 1).toLowerCase()] ?? "application/octet-stream"

const contents = (uri: string, mimeType: string, bytes: Uint8Array) =>
  textual(mimeType) ? { uri, mimeType, text: new TextDecoder().decode(bytes) } : { uri, mimeType, blob: Buffer.from(bytes).toString("base64") }

const notFound = (code: string, detail: string) => Effect.fail({ code, detail })

const segment = (value: string) => encodeURIComponent(value)
export const skillFileUri = (namespace: string, slug: string, version: string, path: string) =>
  `lore://skills/${segment(namespace)}/${segment(slug)}/${segment(version)}/${path.split("/").map(segment).join("/")}`

export const makeResources = Effect.gen(function* () {
  const knowledge = yield* KnowledgeSearch
  const sources = yield* Sources
  const tools = yield* AssetTools
  const assets = yield* Assets
  const skills = yield* Skills

  const releasedSkills = (caller: Principal) => Effect.map(tools.recommendations(caller, { type: "SKILL" }), (found) => found.recommendations)

  const list = (caller: Principal, cursor: string | undefined) =>
    Effect.gen(function* () {
      const start = cursor === undefined ? 0 : resourcesOffset(cursor)
      if (start === undefined) return yield* Effect.fail({ code: "INVALID_CURSOR", detail: "The cursor is not one this server gave out" })
      const documents = (yield* knowledge.catalog(caller, {})).map((entry) => ({
        uri: `lore://documents/${entry.knowledgeVersionId}`,
        name: entry.title,
        title: entry.title,
        mimeType: entry.mediaType,
        description: `Knowledge document (version ${entry.versionNumber}, ${entry.classification})`
      }))
      const files = yield* Effect.forEach(yield* releasedSkills(caller), (skill) =>
        skills.manifest(caller, skill.assetId, skill.releaseId).pipe(Effect.map((manifest) =>
          manifest.files.map((file) => ({
            uri: skillFileUri(manifest.namespace, manifest.slug, manifest.version, file.path),
            name: `${manifest.coordinate}/${file.path}`,
            title: file.path === "SKILL.md" ? `${manifest.title}: SKILL.md` : `${manifest.slug}/${file.path}`,
            mimeType: mediaTypeOf(file.path),
            size: file.size,
            ...(file.path === "SKILL.md" ? { description: manifest.description } : {})
          }))),
          // Withdrawn between the two reads: not listed, rather than failing the whole list.
          Effect.catchTags({ ReleaseWithdrawn: () => Effect.succeed([]), ReleaseNotFound: () => Effect.succeed([]), AssetNotFound: () => Effect.succeed([]) })
        ), { concurrency: 1 })
      const all = [...documents, ...files.flat()]
      const end = start + RESOURCES_PAGE
      return { resources: all.slice(start, end), ...(end < all.length ? { nextCursor: resourcesCursor.encode(end) } : {}) }
    })

  const templates = () => ({
    resourceTemplates: [
      { uriTemplate: DOCUMENT_TEMPLATE, name: "knowledge-document", title: "Knowledge document", description: "A knowledge document you may read, by source (version) id" },
      { uriTemplate: SKILL_FILE_TEMPLATE, name: "skill-file", title: "Skill file", description: "A file (SKILL.md, scripts, references) of a released skill you may use" }
    ]
  })

  const readDocument = (caller: Principal, uri: string, sourceId: string) =>
    Effect.gen(function* () {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(sourceId)) return yield* notFound("SOURCE_NOT_FOUND", "No source with this id that you may see")
      const { row, bytes } = yield* sources.content(caller, sourceId)
      return { contents: [contents(uri, row.mediaType, bytes)] }
    })

  const readSkillFile = (caller: Principal, uri: string, namespace: string, slug: string, version: string, path: string) =>
    Effect.gen(function* () {
      const skill = (yield* releasedSkills(caller)).find((s) => s.namespace === namespace && s.slug === slug)
      if (!skill) return yield* notFound("ASSET_NOT_FOUND", `No released skill ${quoteInput(`${namespace}/${slug}`)} that you may use`)
      const asset = yield* assets.present(caller, skill.assetId)
      const release = asset.releases.find((r) => r.versionLabel === version && r.availability === "AVAILABLE")
      if (!release) return yield* notFound("RELEASE_NOT_FOUND", `${quoteInput(`${namespace}/${slug}@${version}`)}: no such available release that you may use`)
      const manifest = yield* skills.manifest(caller, skill.assetId, release.id)
      if (!manifest.files.some((file) => file.path === path)) return yield* notFound("FILE_NOT_FOUND", `${manifest.coordinate} has no file ${quoteInput(path)}`)
      const pkg = yield* skills.packageOf(caller, skill.assetId, release.id)
      const entry = `${manifest.slug}/${path}`
      const bytes = unzipSync(pkg.bytes, { filter: (file) => file.name === entry })[entry]
      if (!bytes) return yield* Effect.dieMessage(`skill package ${pkg.digest} lacks ${entry}`)
      return { contents: [contents(uri, mediaTypeOf(path), bytes)] }
    })

  const read = (caller: Principal, uri: string) => {
    const document = /^lore:\/\/documents\/([^/?#]+)$/.exec(uri)
    if (document) return readDocument(caller, uri, decodeURIComponent(document[1]!))
    const skill = /^lore:\/\/skills\/([^/]+)\/([^/]+)\/([^/]+)\/(.+)$/.exec(uri)
    if (skill) {
      const [namespace, slug, version] = [skill[1]!, skill[2]!, skill[3]!].map(decodeURIComponent) as [string, string, string]
      const path = skill[4]!.split("/").map(decodeURIComponent).join("/")
      return readSkillFile(caller, uri, namespace, slug, version, path)
    }
    return notFound("RESOURCE_NOT_FOUND", `Lore serves lore://documents/{sourceId} and lore://skills/{namespace}/{slug}/{version}/{path}, not ${quoteInput(uri)}`)
  }

  return { list, templates, read }
})
