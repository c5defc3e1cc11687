import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../../http/Api"
import { asCaller } from "../../domain/Principal"
import { SkillImports } from "./Imports"
import { SKILL_MEDIA_TYPE, Skills } from "./Skills"
import { SkillTargets } from "./Targets"

const notModified = (header: string | undefined, digest: string) =>
  header !== undefined && header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === `"${digest}"` || tag.trim() === "*")

export const SkillsHttp = HttpApiBuilder.group(LoreApi, "skills", (handlers) =>
  Effect.gen(function* () {
    const skills = yield* Skills
    const imports = yield* SkillImports
    const targets = yield* SkillTargets
    return handlers
      .handle("inspectSkill", ({ payload }) => asCaller((me) => skills.inspect(me, payload.file)))
      .handle("createSkill", ({ payload, urlParams }) =>
        asCaller((me) => Effect.flatMap(targets.resolve(me, urlParams), (target) => skills.create(me, { ...target, classification: urlParams.classification }, payload.file))))
      .handle("updateSkillDraft", ({ path, payload, urlParams }) => asCaller((me) => skills.updateDraft(me, path.assetId, urlParams.expectedLockVersion, payload.file)))
      .handle("releaseSkill", ({ path, payload }) => asCaller((me) => skills.release(me, path.assetId, payload)))
      .handle("getSkillManifest", ({ path }) => asCaller((me) => skills.manifest(me, path.assetId, path.releaseId)))
      .handle("getSkillPackage", ({ path, request }) =>
        asCaller((me) =>
          Effect.map(skills.packageOf(me, path.assetId, path.releaseId), ({ bytes, digest, fileName }) =>
            // A release's package never changes: a client holding this digest gets 304 and no body.
            notModified(request.headers["if-none-match"], digest)
              ? HttpServerResponse.empty({ status: 304, headers: { etag: `"${digest}"`, "cache-control": "private, no-cache" } })
              : HttpServerResponse.uint8Array(bytes, {
              contentType: SKILL_MEDIA_TYPE,
              headers: {
                etag: `"${digest}"`,
                "content-disposition": `attachment; filename="${fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")}"`,
                "x-content-type-options": "nosniff",
                "cache-control": "private, no-cache"
              }
            }))))
      .handle("getSkillActivation", ({ path }) => asCaller((me) => skills.activation(me, path.assetId)))
      .handle("setSkillActivation", ({ path, payload }) => asCaller((me) => skills.setActivation(me, path.assetId, payload.enabled)))
      .handle("previewSkillRepository", ({ payload }) => asCaller((me) => imports.preview(me, payload)))
      .handle("importSkillRepository", ({ payload }) => asCaller((me) => imports.importPaths(me, payload)))
  })
)
