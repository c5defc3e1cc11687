import { Effect } from "effect"
import type { CrawlPage, KindContext, NativeAcl, SourceDocument } from "../Kind"
import { inParallel } from "../VendorHttp"
import { type Repository, repositoryAccess } from "./Access"
import { failureOf, type GitHubClient, githubClient, GitHubError } from "./Client"
import { type GitHubConfig, parseGitHubCredential, readGitHubConfig } from "./Config"
import { type Ranges, addToRanges, inRanges } from "./Ranges"
import { DISCUSSIONS_QUERY, type DiscussionsAnswer, discussionDocument, fileDocument, type IssueComment, issueDocument, type ReviewComment } from "./Render"

/** What a crawl keeps of each repository between crawls: the incremental marks and validators. */
export interface RepositoryState {
  /** The newest `updated_at` seen: the next crawl lists issues `since` it (and its ETag answers 304 when none changed). */
  readonly since?: string | null
  readonly issuesEtag?: string | null
  readonly discussionsSince?: string | null
  readonly treeEtag?: string | null
  /** Markdown files on the default branch, path → blob sha, as last read. */
  readonly markdown?: Readonly<Record<string, string>>
}

type Phase = "REPO" | "ISSUES" | "NUMBERS" | "DISCUSSIONS" | "RECONCILE" | "TREE" | "FILES"

export interface CrawlCursor {
  readonly active: boolean
  readonly startedAt: string | null
  readonly repoIndex: number
  readonly phase: Phase
  readonly page: number
  /** A GraphQL cursor (DISCUSSIONS) or the last external id reconciled (RECONCILE). */
  readonly after: string | null
  readonly acl: NativeAcl | null
  readonly defaultBranch: string | null
  readonly webUrl: string | null
  readonly firstEtag: string | null
  readonly newest: string | null
  readonly issueNumbers: Ranges | null
  readonly discussionNumbers: Ranges | null
  readonly pendingFiles: ReadonlyArray<readonly [string, string]>
  readonly markdownNext: Readonly<Record<string, string>> | null
  readonly organizationRead: boolean
  readonly repos: Readonly<Record<string, RepositoryState>>
}

const ISSUES_PAGE = 50
const NUMBERS_PAGE = 100
const RECONCILE_PAGE = 200
const FILES_PER_STEP = 20
const CONCURRENCY = 4
const MARKDOWN = /\.(md|markdown)$/i

const initial = (previous: CrawlCursor | null): CrawlCursor => ({
  active: true,
  startedAt: new Date().toISOString(),
  repoIndex: 0,
  phase: "REPO",
  page: 1,
  after: null,
  acl: null,
  defaultBranch: null,
  webUrl: null,
  firstEtag: null,
  newest: null,
  issueNumbers: null,
  discussionNumbers: null,
  pendingFiles: [],
  markdownNext: null,
  organizationRead: false,
  repos: previous?.repos ?? {}
})

const phases = (config: GitHubConfig): ReadonlyArray<Phase> => {
  const list: Array<Phase> = ["REPO"]
  if (config.include.has("ISSUES") || config.include.has("PULL_REQUESTS")) list.push("ISSUES", "NUMBERS")
  if (config.include.has("DISCUSSIONS")) list.push("DISCUSSIONS")
  list.push("RECONCILE")
  if (config.include.has("MARKDOWN")) list.push("TREE", "FILES")
  return list
}

const hasNext = (headers: { readonly link?: string | undefined }) => headers.link?.includes('rel="next"') === true
const MAX_COMMENT_PAGES = 10

const commentsOf = async (client: GitHubClient, owner: string, repo: string, number: number, pull: boolean): Promise<Array<IssueComment | ReviewComment>> => {
  const comments: Array<IssueComment | ReviewComment> = []
  for (let page = 1; page <= MAX_COMMENT_PAGES; page++) {
    const answer = pull
      ? await client.rest.pulls.listReviewComments({ owner, repo, pull_number: number, per_page: 100, page })
      : await client.rest.issues.listComments({ owner, repo, issue_number: number, per_page: 100, page })
    comments.push(...answer.data)
    if (!hasNext(answer.headers)) break
  }
  return comments
}

/**
 * One crawl step, per chosen repository in turn: its visibility and who may read it (collaborators, teams, the
 * organization's members, yielded as groups); a page of issues and pull requests updated `since` the last crawl
 * (an ETag'd first page: 304 when nothing changed) with their comments or review comments; every issue number
 * (pages of 100) so deleted issues are retired; discussions over GraphQL; and the Markdown files of the default
 * branch from its git tree (ETag'd) and blobs, only the changed ones read. A revoked credential or an unreachable
 * GitHub stops the crawl (FAILED) where it is; nothing is retired.
 */
export const crawlGitHub = (context: KindContext, checkpoint: unknown): Effect.Effect<CrawlPage> =>
  Effect.promise(async (): Promise<CrawlPage> => {
    const read = readGitHubConfig(context.sourceConfig, context.settings)
    const credential = parseGitHubCredential(context.credential)
    const previous = (checkpoint ?? null) as CrawlCursor | null
    const empty = { documents: [], groups: [], deleted: [] }
    if (!read.ok) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "INVALID_CONFIG", message: "The GitHub configuration is invalid", fatal: true }] }
    if (!credential) return { ...empty, checkpoint: previous, done: true, failures: [{ code: "CREDENTIAL_MISSING", message: "No GitHub credential is set", fatal: true }] }
    const config = read.config
    const client = githubClient(config, credential, context.settings)
    const cursor = previous?.active ? previous : initial(previous)
    const owner = config.owner
    const repo = config.repositories[cursor.repoIndex]
    const finished = (state: CrawlCursor): CrawlCursor => ({ ...initial(state), active: false, startedAt: null })
    /** A repository the checkpoint holds state for that the config no longer names (its documents are to be retired). */
    const leavingOf = (state: CrawlCursor) => context.documents ? Object.keys(state.repos).find((name) => !config.repositories.includes(name)) : undefined
    if (repo === undefined) {
      // Repositories taken out of sourceConfig.repositories: their documents are retired (a page a step), then their state dropped.
      const leaving = leavingOf(cursor)
      if (leaving === undefined) return { ...empty, checkpoint: finished(cursor), done: true }
      const prefix = `${owner}/${leaving}/`
      const ids = await Effect.runPromise(context.documents!.page(cursor.after ?? prefix, RECONCILE_PAGE))
      const ours = ids.filter((id) => id.startsWith(prefix))
      const more = ids.length === RECONCILE_PAGE && ours.length === ids.length
      const { [leaving]: _dropped, ...kept } = cursor.repos
      const following: CrawlCursor = more ? { ...cursor, after: ours.at(-1)! } : { ...cursor, after: null, repos: kept }
      return { ...empty, deleted: ours, checkpoint: following, done: false }
    }
    const order = phases(config)
    const state = cursor.repos[repo] ?? {}
    const nextPhase = (from: CrawlCursor, repos = from.repos): CrawlCursor => {
      const phase = order[order.indexOf(from.phase) + 1]
      if (phase) return { ...from, phase, page: 1, after: null, firstEtag: null, newest: null, repos }
      return { ...initial(from), startedAt: from.startedAt, organizationRead: from.organizationRead, repoIndex: from.repoIndex + 1, repos }
    }
    const nextRepository = (from: CrawlCursor): CrawlCursor => ({ ...initial(from), startedAt: from.startedAt, organizationRead: from.organizationRead, repoIndex: from.repoIndex + 1 })
    const step = (page: Omit<CrawlPage, "done" | "checkpoint">, following: CrawlCursor): CrawlPage => {
      const done = following.repoIndex >= config.repositories.length && leavingOf(following) === undefined
      return { ...page, checkpoint: done ? finished(following) : following, done }
    }
    const withRepo = <A extends { readonly message: string }>(failure: A) => ({ ...failure, message: `${owner}/${repo}: ${failure.message}` })

    try {
      switch (cursor.phase) {
        case "REPO": {
          let repository: Repository
          try {
            repository = (await client.rest.repos.get({ owner, repo })).data
          } catch (error) {
            const failure = failureOf(error)
            if (failure.fatal) throw error
            return step({ ...empty, failures: [withRepo(failure)] }, nextRepository(cursor))
          }
          const access = await repositoryAccess(client, repository, { organization: !cursor.organizationRead })
          const organizationRead = cursor.organizationRead || access.groups.some((group) => group.kind === "SOURCE_ORGANIZATION")
          const webUrl = typeof repository.html_url === "string" && /^https?:\/\//.test(repository.html_url) ? repository.html_url : null
          return step({ ...empty, groups: access.groups }, nextPhase({ ...cursor, acl: access.acl, defaultBranch: repository.default_branch, webUrl, organizationRead }))
        }
        case "ISSUES": {
          let answer: Awaited<ReturnType<GitHubClient["rest"]["issues"]["listForRepo"]>>
          const conditional = cursor.page === 1 && state.issuesEtag ? { headers: { "if-none-match": state.issuesEtag } } : {}
          try {
            answer = await client.rest.issues.listForRepo({ owner, repo, state: "all", sort: "updated", direction: "asc", per_page: ISSUES_PAGE, page: cursor.page, ...(state.since ? { since: state.since } : {}), ...conditional })
          } catch (error) {
            // Nothing was updated since the last crawl: GitHub answers 304, which costs no rate limit.
            if (error instanceof GitHubError && error.status === 304) return step(empty, nextPhase(cursor))
            throw error
          }
          const wanted = answer.data.filter((issue) => (issue.pull_request ? config.include.has("PULL_REQUESTS") : config.include.has("ISSUES")))
          const documents = await inParallel(wanted, CONCURRENCY, async (issue) => {
            const pull = Boolean(issue.pull_request)
            const comments = pull || issue.comments > 0 ? await commentsOf(client, owner, repo, issue.number, pull) : []
            return issueDocument(owner, repo, issue, comments, cursor.acl)
          })
          let newest = cursor.newest
          for (const issue of answer.data) if (newest === null || issue.updated_at > newest) newest = issue.updated_at
          const firstEtag = cursor.page === 1 ? answer.headers.etag ?? null : cursor.firstEtag
          if (hasNext(answer.headers)) return step({ ...empty, documents }, { ...cursor, page: cursor.page + 1, newest, firstEtag })
          const repos = { ...cursor.repos, [repo]: { ...state, since: newest ?? state.since ?? null, issuesEtag: cursor.page === 1 ? firstEtag : null } }
          return step({ ...empty, documents }, nextPhase(cursor, repos))
        }
        case "NUMBERS": {
          const answer = await client.rest.issues.listForRepo({ owner, repo, state: "all", sort: "created", direction: "asc", per_page: NUMBERS_PAGE, page: cursor.page })
          const issueNumbers = addToRanges(cursor.issueNumbers ?? [], answer.data.map((issue) => issue.number))
          if (hasNext(answer.headers)) return step(empty, { ...cursor, page: cursor.page + 1, issueNumbers })
          return step(empty, nextPhase({ ...cursor, issueNumbers }))
        }
        case "DISCUSSIONS": {
          const answer = await client.graphql<DiscussionsAnswer>(DISCUSSIONS_QUERY, { owner, name: repo, after: cursor.after })
          const discussions = answer.repository?.discussions
          if (!discussions) return step({ ...empty, failures: [withRepo({ code: "NOT_FOUND", message: "GitHub gave no discussions" })] }, nextPhase(cursor))
          const since = state.discussionsSince ?? null
          const documents: Array<SourceDocument> = []
          let newest = cursor.newest
          for (const discussion of discussions.nodes) {
            if (since === null || discussion.updatedAt >= since) documents.push(discussionDocument(owner, repo, discussion, cursor.acl))
            if (newest === null || discussion.updatedAt > newest) newest = discussion.updatedAt
          }
          const discussionNumbers = addToRanges(cursor.discussionNumbers ?? [], discussions.nodes.map((d) => d.number))
          if (discussions.pageInfo.hasNextPage && discussions.pageInfo.endCursor) {
            return step({ ...empty, documents }, { ...cursor, after: discussions.pageInfo.endCursor, newest, discussionNumbers })
          }
          const repos = { ...cursor.repos, [repo]: { ...state, discussionsSince: newest ?? since } }
          return step({ ...empty, documents }, nextPhase({ ...cursor, discussionNumbers }, repos))
        }
        case "RECONCILE": {
          // Issues, pull requests and discussions Lore holds whose numbers GitHub no longer lists were deleted there.
          if (!context.documents || (cursor.issueNumbers === null && cursor.discussionNumbers === null)) return step(empty, nextPhase(cursor))
          const prefix = `${owner}/${repo}/`
          const ids = await Effect.runPromise(context.documents.page(cursor.after ?? prefix, RECONCILE_PAGE))
          const ours = ids.filter((id) => id.startsWith(prefix))
          const deleted: Array<string> = []
          for (const id of ours) {
            const match = /^(issues|pull|discussions)\/(\d{1,12})$/.exec(id.slice(prefix.length))
            if (!match) continue
            const ranges = match[1] === "discussions" ? cursor.discussionNumbers : cursor.issueNumbers
            if (ranges !== null && !inRanges(ranges, Number(match[2]))) deleted.push(id)
          }
          const more = ids.length === RECONCILE_PAGE && ours.length === ids.length
          return step({ ...empty, deleted }, more ? { ...cursor, after: ours.at(-1)! } : nextPhase(cursor))
        }
        case "TREE": {
          if (!cursor.defaultBranch) return step(empty, nextPhase(nextPhase(cursor)))
          const conditional = state.treeEtag ? { headers: { "if-none-match": state.treeEtag } } : {}
          let tree: Awaited<ReturnType<GitHubClient["rest"]["git"]["getTree"]>>
          try {
            tree = await client.rest.git.getTree({ owner, repo, tree_sha: cursor.defaultBranch, recursive: "1", ...conditional })
          } catch (error) {
            if (error instanceof GitHubError && error.status === 304) return step(empty, nextPhase(nextPhase(cursor)))
            // An empty repository has no tree.
            if (error instanceof GitHubError && (error.status === 404 || error.status === 409)) return step(empty, nextPhase(nextPhase(cursor)))
            throw error
          }
          const markdown: Record<string, string> = {}
          let skipped = 0
          for (const entry of tree.data.tree) {
            if (entry.type !== "blob" || !entry.path || !entry.sha || !MARKDOWN.test(entry.path)) continue
            if ((entry.size ?? 0) > context.settings.maxUploadBytes) skipped++
            else markdown[entry.path] = entry.sha
          }
          const known = state.markdown ?? {}
          const deleted = Object.keys(known).filter((path) => !(path in markdown)).map((path) => `${owner}/${repo}/blob/${path}`)
          const pendingFiles = Object.entries(markdown).filter(([path, sha]) => known[path] !== sha)
          const failures = tree.data.truncated ? [withRepo({ code: "TREE_TRUNCATED", message: "GitHub truncated the git tree: some Markdown files were not read" })] : []
          const repos = { ...cursor.repos, [repo]: { ...state, treeEtag: tree.data.truncated ? null : tree.headers.etag ?? null } }
          return step({ ...empty, deleted, skipped, failures }, nextPhase({ ...cursor, pendingFiles, markdownNext: markdown, repos }))
        }
        case "FILES": {
          const batch = cursor.pendingFiles.slice(0, FILES_PER_STEP)
          const failures: Array<{ code: string; message: string; fatal?: boolean }> = []
          const failedPaths = new Set<string>()
          const read = await inParallel(batch, CONCURRENCY, async ([path, sha]) => {
            try {
              const blob = (await client.rest.git.getBlob({ owner, repo, file_sha: sha })).data
              return fileDocument(owner, repo, cursor.defaultBranch ?? "HEAD", path, Buffer.from(blob.content, blob.encoding === "base64" ? "base64" : "utf8"), cursor.webUrl, cursor.acl)
            } catch (error) {
              const failure = failureOf(error)
              if (failure.fatal) throw error
              failures.push(withRepo({ ...failure, message: `${path.slice(0, 200)}: ${failure.message}` }))
              failedPaths.add(path)
              return null
            }
          })
          const documents = read.filter((document): document is SourceDocument => document !== null && document.bytes.byteLength > 0)
          // A file that failed is read again next crawl: its sha is not kept (nor the tree's ETag, which would skip it).
          const markdownNext = failedPaths.size === 0 ? cursor.markdownNext : Object.fromEntries(Object.entries(cursor.markdownNext ?? {}).filter(([path]) => !failedPaths.has(path)))
          const untrusted = failedPaths.size > 0 ? { treeEtag: null } : {}
          const pendingFiles = cursor.pendingFiles.slice(FILES_PER_STEP)
          if (pendingFiles.length > 0) return step({ ...empty, documents, failures }, { ...cursor, pendingFiles, markdownNext, repos: { ...cursor.repos, [repo]: { ...state, ...untrusted } } })
          const repos = { ...cursor.repos, [repo]: { ...state, ...untrusted, markdown: markdownNext ?? {} } }
          return step({ ...empty, documents, failures }, nextPhase({ ...cursor, pendingFiles: [], markdownNext: null }, repos))
        }
      }
    } catch (error) {
      const failure = failureOf(error)
      if (failure.fatal) return { ...empty, checkpoint: cursor, done: true, failures: [failure] }
      // One repository's failure (rate limit past the budget, an answer too large): recorded, the next repository goes on.
      return step({ ...empty, failures: [withRepo(failure)] }, nextRepository(cursor))
    }
  })

