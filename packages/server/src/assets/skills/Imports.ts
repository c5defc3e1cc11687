import { Effect } from "effect"
import { posix } from "node:path"
import { AccessEvaluator } from "../../access/Evaluator"
import { KnowledgeSpaceNotFound } from "../../access/Errors"
import { Settings } from "../../Config"
import type { Classification } from "../../domain/Model"
import type { Principal } from "../../domain/Principal"
import { NotAContributor } from "../../knowledge/Errors"
import { Audit } from "../../platform/Audit"
import { AssetReader } from "../AssetReader"
import { Assets } from "../Assets"
import { mayEdit } from "../Policy"
import { declaredProblems, type PackageFile, type SkillProblem } from "./Archive"
import { checkSkill, type ValidSkill } from "./Format"
import { type FetchedTree, type RepositoryCredential, type TreeEntry, withRepository } from "../../git/Repository"
import { outboundPolicy } from "../../outbound/Guard"
import { skillPayload, Skills } from "./Skills"
import { SkillsRepo } from "./Repo"
import { SkillTargets } from "./Targets"

export interface RepositorySource {
  readonly repository: string
  readonly knowledgeSpaceId: string
  readonly revision?: string | undefined
  readonly credential?: RepositoryCredential | undefined
}

interface FoundSkill {
  readonly path: string
  readonly skill: ValidSkill | null
  readonly problems: ReadonlyArray<SkillProblem>
  readonly fileCount: number
  readonly name: string | null
  readonly description: string | null
}

const SYMLINK = "120000"
const SUBMODULE = "160000"

const summary = (problems: ReadonlyArray<SkillProblem>) =>
  problems.length === 0 ? null : problems.slice(0, 5).map((p) => (p.path ? `${p.path}: ${p.message}` : p.message)).join("; ") + (problems.length > 5 ? `; and ${problems.length - 5} more` : "")

/**
 * Skills from git repositories: every SKILL.md of a revision found and checked like an uploaded package
 * (preview), and the chosen folders imported into a namespace as drafts (import). Importing a folder whose
 * package is unchanged creates and changes nothing (`UNCHANGED`); a changed one replaces the draft.
 */
export class SkillImports extends Effect.Service<SkillImports>()("lore/SkillImports", {
  effect: Effect.gen(function* () {
    const settings = yield* Settings
    const evaluator = yield* AccessEvaluator
    const reader = yield* AssetReader
    const assets = yield* Assets
    const skills = yield* Skills
    const repo = yield* SkillsRepo
    const audit = yield* Audit
    const targets = yield* SkillTargets
    const limits = settings.skillLimits

    const requireSpace = (caller: Principal, knowledgeSpaceId: string, relation: "viewer" | "contributor") =>
      Effect.gen(function* () {
        const spaces = yield* evaluator.spacesWith(caller, relation)
        if (spaces.some((space) => space.id === knowledgeSpaceId)) return
        const viewable = relation === "viewer" ? [] : yield* evaluator.spacesWith(caller, "viewer")
        return yield* viewable.some((space) => space.id === knowledgeSpaceId)
          ? Effect.fail(new NotAContributor({ detail: "You may read this knowledge space but not add assets to it" }))
          : Effect.fail(new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id that you may see" }))
      })

    /** Every skill folder of the tree (a folder holding SKILL.md), checked; files of nested skills belong to those. */
    const findSkills = (tree: FetchedTree) =>
      Effect.gen(function* () {
        const folders = tree.entries.filter((e) => posix.basename(e.path) === "SKILL.md").map((e) => posix.dirname(e.path))
        const found: Array<FoundSkill> = []
        for (const folder of [...new Set(folders)].sort()) {
          const prefix = folder === "." ? "" : folder + "/"
          const nested = folders.filter((other) => other !== folder && (prefix === "" || other.startsWith(prefix)) && other !== ".")
          const members = tree.entries.filter((e) => e.path.startsWith(prefix) && !nested.some((n) => e.path.startsWith(n + "/")))
          const relative = (e: TreeEntry) => e.path.slice(prefix.length)
          const problems = declaredProblems(members.map((e) => ({ path: relative(e), symlink: e.mode === SYMLINK, directory: false })), limits)
          for (const e of members) {
            if (e.mode === SUBMODULE) problems.push({ code: "SUBMODULE", path: relative(e), message: "is a git submodule; packages hold regular files only" })
            if (e.size > limits.maxFileBytes) problems.push({ code: "FILE_TOO_LARGE", path: relative(e), message: `is larger than ${limits.maxFileBytes} bytes` })
          }
          const total = members.reduce((sum, e) => sum + e.size, 0)
          if (total > limits.maxUnpackedBytes) problems.push({ code: "PACKAGE_TOO_LARGE", path: "", message: `unpacks to more than ${limits.maxUnpackedBytes} bytes` })
          const base = { path: folder, fileCount: members.length }
          if (problems.length > 0) {
            found.push({ ...base, skill: null, problems, name: null, description: null })
            continue
          }
          const blobs = yield* tree.read(members.map((e) => e.oid))
          const files: Array<PackageFile> = members.map((e) => ({ path: relative(e), bytes: blobs.get(e.oid) ?? new Uint8Array(0) }))
          const checked = checkSkill(files, folder === "." ? null : posix.basename(folder), limits)
          found.push(checked.ok
            ? { ...base, skill: checked.skill, problems: [], name: checked.skill.inspection.name, description: checked.skill.inspection.description }
            : { ...base, skill: null, problems: checked.problems, name: null, description: null })
        }
        return found
      })

    const visibility = (source: RepositorySource) => (source.credential ? "PRIVATE" as const : "PUBLIC" as const)

    const preview = (caller: Principal, source: RepositorySource) =>
      Effect.gen(function* () {
        yield* requireSpace(caller, source.knowledgeSpaceId, "viewer").pipe(Effect.catchTag("NotAContributor", Effect.die))
        return yield* withRepository(settings.repositories, outboundPolicy(settings), source, (tree) =>
          Effect.map(findSkills(tree), (found) => ({
            repository: source.repository,
            revision: tree.commit,
            visibility: visibility(source),
            skills: found.map((skill) => ({
              path: skill.path,
              importable: skill.skill !== null,
              name: skill.name,
              description: skill.description,
              fileCount: skill.fileCount,
              errorCode: skill.problems[0]?.code ?? null,
              errorMessage: summary(skill.problems),
              errors: skill.problems.map((p) => ({ path: p.path, message: p.message, code: p.code }))
            }))
          })))
      })

    /** Imports one checked folder: creates the asset, replaces a changed draft, or answers UNCHANGED. */
    const importOne = (caller: Principal, input: { namespace: string; classification: Classification; knowledgeSpaceId: string }, found: FoundSkill, source: { repository: string; revision: string }) =>
      Effect.gen(function* () {
        const none = { path: found.path, asset: null }
        const skill = found.skill
        if (!skill) return { ...none, imported: false, errorCode: found.problems[0]?.code ?? "INVALID_SKILL_PACKAGE", errorMessage: summary(found.problems) }
        const origin = { repository: source.repository, path: found.path, revision: source.revision }
        const existing = yield* repo.assetBySlug(caller.organizationId, input.namespace, skill.inspection.name)
        if (!existing) {
          const created = yield* skills.createFrom(caller, input, skill, origin).pipe(
            Effect.map((asset) => ({ ...none, asset, imported: true, errorCode: null, errorMessage: null })),
            Effect.catchTags({
              AssetSlugTaken: (e) => Effect.succeed({ ...none, imported: false, errorCode: e.code, errorMessage: e.detail }),
              ClassificationAboveClearance: (e) => Effect.succeed({ ...none, imported: false, errorCode: e.code, errorMessage: e.detail })
            })
          )
          return created
        }
        const loaded = yield* Effect.either(reader.load(caller, existing.id))
        if (loaded._tag === "Left") return { ...none, imported: false, errorCode: "ASSET_SLUG_TAKEN", errorMessage: `An asset ${input.namespace}/${skill.inspection.name} exists already` }
        const { parts, standing } = loaded.right
        if (parts.asset.type !== "SKILL") return { ...none, imported: false, errorCode: "WRONG_ASSET_TYPE", errorMessage: `${input.namespace}/${parts.asset.slug} is a ${parts.asset.type}` }
        if (skillPayload(parts.asset.payload).sha256 === skill.inspection.sha256) {
          return { ...none, asset: yield* assets.present(caller, existing.id), imported: false, errorCode: "UNCHANGED", errorMessage: "The draft holds this package already" }
        }
        if (!mayEdit(standing)) return { ...none, imported: false, errorCode: "ASSET_ROLE_REQUIRED", errorMessage: "You may not edit this skill's draft" }
        return yield* skills.replaceDraft(caller, existing.id, undefined, skill, origin).pipe(
          Effect.map((asset) => ({ ...none, asset, imported: true, errorCode: null, errorMessage: null })),
          Effect.catchAll((e) => Effect.succeed({ ...none, imported: false, errorCode: e.code, errorMessage: e.detail }))
        )
      }).pipe(Effect.catchTag("AssetNotFound", Effect.die))

    /**
     * Imports the chosen folders, or, without `paths`, every folder holding a SKILL.md: the ones that break a rule
     * are reported (imported false, with their errorCode), never silently left out. The space defaults to the
     * caller's only upload target and the namespace to the space's key (SkillTargets).
     */
    const importPaths = (
      caller: Principal,
      input: { source: Omit<RepositorySource, "knowledgeSpaceId"> & { knowledgeSpaceId?: string | undefined }; paths?: ReadonlyArray<string> | undefined; namespace?: string | undefined; classification: Classification }
    ) =>
      Effect.gen(function* () {
        const target = yield* targets.resolve(caller, { knowledgeSpaceId: input.source.knowledgeSpaceId, namespace: input.namespace })
        const source: RepositorySource = { ...input.source, knowledgeSpaceId: target.knowledgeSpaceId }
        yield* requireSpace(caller, source.knowledgeSpaceId, "contributor")
        return yield* withRepository(settings.repositories, outboundPolicy(settings), source, (tree) =>
          Effect.gen(function* () {
            const found = yield* findSkills(tree)
            const chosen = input.paths ?? found.map((skill) => skill.path)
            const results = []
            for (const path of [...new Set(chosen.map((p) => p.replace(/\/+$/, "") || "."))]) {
              const skill = found.find((f) => f.path === path)
              if (!skill) {
                results.push({ path, imported: false, asset: null, errorCode: "SKILL_NOT_FOUND", errorMessage: "The revision has no SKILL.md in this folder" })
                continue
              }
              results.push(yield* importOne(caller, { namespace: target.namespace, classification: input.classification, knowledgeSpaceId: source.knowledgeSpaceId }, skill, { repository: source.repository, revision: tree.commit }))
            }
            yield* audit.record(caller, {
              action: "asset.skill.import",
              resourceType: "asset",
              resourceId: null,
              details: {
                repository: source.repository,
                revision: tree.commit,
                namespace: target.namespace,
                results: results.map((r) => ({ path: r.path, imported: r.imported, errorCode: r.errorCode, assetId: r.asset?.id ?? null }))
              }
            })
            return { repository: source.repository, revision: tree.commit, visibility: visibility(source), skills: results }
          }))
      })

    return { preview, importPaths }
  }),
  dependencies: [AccessEvaluator.Default, AssetReader.Default, Assets.Default, Skills.Default, SkillsRepo.Default, Audit.Default, SkillTargets.Default]
}) {}
