import { Data, Effect } from "effect"
import { posix } from "node:path"
import type { RepositoryFetchFailed, RepositoryRefused } from "../git/Errors"
import { failureKind, isAddressRefusal, repositoryAddress, resolveRef, type TreeEntry, withRepository } from "../git/Repository"
import type { LoreSettings } from "../Config"
import type { FieldError } from "../domain/Errors"
import { outboundPolicy } from "../outbound/Guard"
import type { ConnectionTestResult, ConnectorKindModule, CrawlPage, KindContext, Scope, SourceDocument } from "./Kind"
import { documentStamp, filterStamp, type GitConfig, gitCredential, parseGitConfig, readGitCredential, validateGitConfig } from "./GitConfig"
import { browseUrlOf, mediaTypeOf, titleOf, underPaths } from "./GitDocuments"

/** Documents per page, and the bytes a page reads at most (one file larger than that is a page of its own). */
const PAGE_DOCUMENTS = 25
const PAGE_BYTES = 16 * 1024 * 1024
/** Deletions per page: only ids, so many. */
const PAGE_DELETIONS = 500
const REGULAR_FILES = new Set(["100644", "100755"])
const MAX_PATH = 500

/**
 * The checkpoint. `blobs` is what is indexed now: each path's blob id (a value starting with `~` is a path to
 * yield again because the settings its document carries changed). `commit` is the last commit fully indexed;
 * `target` the branch head the crawl in progress is heading to (null between crawls). Every page compares the
 * branch head's tree with `blobs` by blob id alone, so a crawl resumes wherever it stopped, and a force-push,
 * even to an unrelated history, yields exactly the files whose content differs.
 */
interface GitCheckpoint {
  readonly component: "git"
  readonly commit: string | null
  readonly target: string | null
  readonly stamp: string
  readonly filter: string
  readonly blobs: Readonly<Record<string, string>>
}

const isCheckpoint = (value: unknown): value is GitCheckpoint => {
  if (typeof value !== "object" || value === null) return false
  const c = value as Record<string, unknown>
  return c.component === "git" && typeof c.stamp === "string" && typeof c.filter === "string" &&
    (c.commit === null || typeof c.commit === "string") && (c.target === null || typeof c.target === "string") &&
    typeof c.blobs === "object" && c.blobs !== null && Object.values(c.blobs).every((oid) => typeof oid === "string")
}

const fresh: GitCheckpoint = { component: "git", commit: null, target: null, stamp: "", filter: "", blobs: {} }

/** Why the repository could not be read; a crawl reports it as a fatal failure (never holding a credential). */
class GitFailure extends Data.TaggedError("GitFailure")<{ readonly code: string; readonly message: string }> {}

const failure = (error: RepositoryRefused | RepositoryFetchFailed) => {
  if (error._tag === "RepositoryRefused") return new GitFailure({ code: isAddressRefusal(error) ? "ADDRESS_NOT_ALLOWED" : "REPOSITORY_NOT_ALLOWED", message: error.detail })
  const kind = failureKind(error.detail)
  return new GitFailure({ code: kind === "REVISION_NOT_FOUND" ? "BRANCH_NOT_FOUND" : kind, message: error.detail })
}

const settingsOf = (context: KindContext) => {
  const errors = validateGitConfig(context.sourceConfig)
  if (errors.length > 0) {
    return Effect.fail(new GitFailure({ code: "INVALID_CONNECTOR_CONFIG", message: errors.map((e) => `${e.path} ${e.message}`).join("; ") }))
  }
  const config = parseGitConfig(context.sourceConfig)
  const maxFileBytes = Math.min(config.maxFileBytes ?? Number.MAX_SAFE_INTEGER, context.settings.maxUploadBytes)
  return Effect.succeed({ config, maxFileBytes, credential: gitCredential(context.credential), ref: `refs/heads/${config.branch}` })
}

/** The files of a tree the connection indexes: regular files of a known type under the paths, not empty, not too large. */
const admitted = (config: GitConfig, maxFileBytes: number, entries: ReadonlyArray<TreeEntry>) =>
  entries.filter((entry) =>
    REGULAR_FILES.has(entry.mode) && entry.path.length <= MAX_PATH && mediaTypeOf(entry.path) !== undefined &&
    underPaths(config.paths, entry.path) && entry.size > 0 && entry.size <= maxFileBytes)

const step = (context: KindContext, checkpoint: unknown) =>
  Effect.gen(function* () {
    const { config, maxFileBytes, credential, ref } = yield* settingsOf(context)
    const previous = isCheckpoint(checkpoint) ? checkpoint : fresh
    const stamp = documentStamp(config)
    const filter = filterStamp(config, maxFileBytes)
    const repositories = context.settings.repositories
    const policy = outboundPolicy(context.settings)

    // Between crawls, a branch that did not move under unchanged settings costs one ls-remote.
    if (previous.target === null && previous.commit !== null && previous.stamp === stamp && previous.filter === filter) {
      const head = yield* resolveRef(repositories, policy, { repository: config.repository, ref, credential }).pipe(Effect.mapError(failure))
      if (head === null) return yield* new GitFailure({ code: "BRANCH_NOT_FOUND", message: `The repository has no branch ${config.branch}` })
      if (head === previous.commit) return { documents: [], groups: [], deleted: [], checkpoint: previous, done: true } satisfies CrawlPage
    }

    return yield* withRepository(repositories, policy, { repository: config.repository, revision: ref, credential }, (tree) =>
      Effect.gen(function* () {
        const restamp = previous.stamp !== stamp
        const blobs: Record<string, string> = restamp
          ? Object.fromEntries(Object.entries(previous.blobs).map(([path, oid]) => [path, oid.startsWith("~") ? oid : `~${oid}`]))
          : { ...previous.blobs }
        const files = admitted(config, maxFileBytes, tree.entries)
        const present = new Set(files.map((file) => file.path))
        const gone = Object.keys(blobs).filter((path) => !present.has(path)).sort()
        const changed = files.filter((file) => blobs[file.path] !== file.oid).sort((a, b) => (a.path < b.path ? -1 : 1))

        const deleted = gone.slice(0, PAGE_DELETIONS)
        const taken: Array<TreeEntry> = []
        let bytes = 0
        for (const file of changed) {
          if (taken.length >= PAGE_DOCUMENTS || (taken.length > 0 && bytes + file.size > PAGE_BYTES)) break
          taken.push(file)
          bytes += file.size
        }
        const contents = yield* tree.read([...new Set(taken.map((file) => file.oid))])
        const documents = taken.map((file): SourceDocument => {
          const content = contents.get(file.oid)!
          const mediaType = mediaTypeOf(file.path)!
          return {
            externalId: file.path,
            title: titleOf(file.path, mediaType, content),
            bytes: content,
            fileName: posix.basename(file.path),
            mediaType,
            url: browseUrlOf(config, tree.commit, file.path),
            classification: config.classification,
            acl: config.readers
          }
        })

        for (const path of deleted) delete blobs[path]
        for (const file of taken) blobs[file.path] = file.oid
        const remaining = gone.length - deleted.length + changed.length - taken.length
        const done = remaining === 0
        const next: GitCheckpoint = {
          component: "git",
          commit: done ? tree.commit : previous.commit,
          target: done ? null : tree.commit,
          stamp,
          filter: done ? filter : previous.filter,
          blobs
        }
        // Group memberships go with the first page under new settings (and again if that page is redone).
        return { documents, groups: restamp ? config.groups : [], deleted, checkpoint: next, done, remaining } satisfies CrawlPage
      })
    ).pipe(Effect.catchTags({ RepositoryRefused: (e) => Effect.fail(failure(e)), RepositoryFetchFailed: (e) => Effect.fail(failure(e)) }))
  })

/**
 * A repository that cannot be read (unreachable, refused credential, branch gone) ends the crawl with a fatal
 * failure: the attempt is FAILED with that code, nothing is retired, and the checkpoint stays as it was, so the
 * next crawl (by hand or on the schedule) goes on from there.
 */
const crawl = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  step(context, checkpoint).pipe(
    Effect.catchTag("GitFailure", (error) =>
      Effect.succeed({ documents: [], groups: [], deleted: [], checkpoint, done: true, failures: [{ code: error.code, message: error.message, fatal: true }] }))
  )

/** What activity shows: the commits and how many files are indexed, not every path's blob id. */
const describeCheckpoint = (checkpoint: unknown) => {
  if (!isCheckpoint(checkpoint)) return { cursor: checkpoint, inProgress: false }
  const values = Object.values(checkpoint.blobs)
  return {
    cursor: { component: "git", commit: checkpoint.commit, target: checkpoint.target, files: values.length, pending: values.filter((oid) => oid.startsWith("~")).length },
    inProgress: checkpoint.target !== null
  }
}

const testCredentials = (context: KindContext): Effect.Effect<ConnectionTestResult> =>
  Effect.gen(function* () {
    const { config, credential, ref } = yield* settingsOf(context)
    const head = yield* resolveRef(context.settings.repositories, outboundPolicy(context.settings), { repository: config.repository, ref, credential }).pipe(Effect.mapError(failure))
    return {
      authenticated: true,
      accountName: null,
      identityName: credential?.username ?? null,
      canReadContent: head !== null,
      errorCode: head === null ? "BRANCH_NOT_FOUND" : null
    }
  }).pipe(
    Effect.catchAll((error) =>
      Effect.succeed({
        authenticated: error.code !== "AUTHENTICATION_FAILED" && error.code !== "REPOSITORY_NOT_ALLOWED" && error.code !== "ADDRESS_NOT_ALLOWED" && error.code !== "INVALID_CONNECTOR_CONFIG" && error.code !== "REPOSITORY_UNREACHABLE",
        accountName: null,
        identityName: null,
        canReadContent: false,
        errorCode: error.code
      })
    )
  )

/**
 * A GIT config as saved: its fields (validateGitConfig), then the repository's address against this server's
 * rules (file:// only where allowed, the outbound guard's private addresses), so a config pointing at
 * 127.0.0.1 or file:///etc is a 422 when saved rather than a failure when first tested. The host list
 * (LORE_REPO_ALLOWED_HOSTS) is left to fetch time, as before: a connection may be prepared before its host is
 * allowed, and a test then says REPOSITORY_NOT_ALLOWED.
 */
const validateConfig = (sourceConfig: Readonly<Record<string, unknown>>, settings: LoreSettings): ReadonlyArray<FieldError> => {
  const errors = validateGitConfig(sourceConfig)
  if (errors.some((e) => e.path === "sourceConfig.repository") || typeof sourceConfig.repository !== "string") return errors
  const anyHost = { ...settings.repositories, allowedHosts: ["*"] }
  const checked = repositoryAddress(anyHost, outboundPolicy(settings), sourceConfig.repository, undefined)
  if (checked.ok) return errors
  return [...errors, { path: "sourceConfig.repository", message: checked.problem.detail, ...(checked.problem.addressRefused ? { code: "ADDRESS_NOT_ALLOWED" } : {}) }]
}

const scopeName = (path: string) => (path === "." ? "The whole repository" : path)

/** The configured paths (or the whole repository), each reachable when the branch could be fetched and admissible when it holds files to index. */
const listScopes = (context: KindContext): Effect.Effect<ReadonlyArray<Scope>> =>
  Effect.gen(function* () {
    const { config, maxFileBytes, credential, ref } = yield* settingsOf(context)
    const keys = config.paths.length > 0 ? config.paths : ["."]
    return yield* withRepository(context.settings.repositories, outboundPolicy(context.settings), { repository: config.repository, revision: ref, credential }, (tree) =>
      Effect.succeed(keys.map((key): Scope => {
        const count = admitted({ ...config, paths: key === "." ? [] : [key] }, maxFileBytes, tree.entries).length
        return {
          key,
          displayName: `${scopeName(key)} (${config.branch}, ${count} file${count === 1 ? "" : "s"} to index)`,
          reachable: true,
          admissible: count > 0,
          instruction: count > 0 ? null : `No Markdown, text, PDF, DOCX or HTML file${key === "." ? "" : ` under ${key}`} on ${config.branch}`
        }
      }))
    ).pipe(
      Effect.mapError(failure),
      Effect.catchAll((error) =>
        Effect.succeed(keys.map((key): Scope => ({ key, displayName: scopeName(key), reachable: false, admissible: false, instruction: `${error.code}: ${error.message}` })))
      )
    )
  }).pipe(Effect.catchAll((error) => Effect.succeed([{ key: ".", displayName: "The repository", reachable: false, admissible: false, instruction: `${error.code}: ${error.message}` }])))

/**
 * GIT: a repository (http(s), or file:// where the server allows it) at a branch. Markdown, text, HTML, PDF and
 * DOCX files under the configured paths become documents (external id = the path), readable by the configured
 * readers; each crawl yields only what changed since the checkpoint's blob ids, and retires what is gone.
 */
export const GitKind: ConnectorKindModule = {
  sourceSystem: "GIT",
  displayName: "Git repository",
  validateConfig,
  readCredential: readGitCredential,
  testCredentials,
  listScopes,
  describeCheckpoint,
  crawl
}
