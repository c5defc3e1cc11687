import type { RestEndpointMethodTypes } from "@octokit/rest"
import type { NativeAcl, SourceDocument } from "../Kind"

export type Issue = RestEndpointMethodTypes["issues"]["listForRepo"]["response"]["data"][number]
export type IssueComment = RestEndpointMethodTypes["issues"]["listComments"]["response"]["data"][number]
export type ReviewComment = RestEndpointMethodTypes["pulls"]["listReviewComments"]["response"]["data"][number]

/** GraphQL: one discussion with its comments (the REST API has no discussions). */
export interface DiscussionNode {
  readonly number: number
  readonly title: string
  readonly body: string
  readonly url: string
  readonly updatedAt: string
  readonly createdAt: string
  readonly author: { readonly login: string } | null
  readonly category: { readonly name: string } | null
  readonly comments: { readonly nodes: ReadonlyArray<{ readonly body: string; readonly createdAt: string; readonly author: { readonly login: string } | null }> }
}
export interface DiscussionsAnswer {
  readonly repository: {
    readonly discussions: {
      readonly pageInfo: { readonly hasNextPage: boolean; readonly endCursor: string | null }
      readonly nodes: ReadonlyArray<DiscussionNode>
    }
  } | null
}
export const DISCUSSIONS_QUERY = `query($owner: String!, $name: String!, $after: String) { repository(owner: $owner, name: $name) { discussions(first: 25, after: $after, orderBy: { field: UPDATED_AT, direction: DESC }) { pageInfo { hasNextPage endCursor } nodes { number title body url updatedAt createdAt author { login } category { name } comments(first: 50) { nodes { body createdAt author { login } } } } } } }`

const encoder = new TextEncoder()
const who = (user: { readonly login: string } | null | undefined) => (user ? `@${user.login}` : "someone")
const day = (iso: string | null | undefined) => (iso ?? "").slice(0, 10)
const httpsUrl = (url: string | null | undefined) => (typeof url === "string" && /^https?:\/\//.test(url) ? url : null)

const markdown = (externalId: string, title: string, fileName: string, url: string | null, text: string, acl: NativeAcl | null): SourceDocument => ({
  externalId,
  title: title.slice(0, 500) || externalId,
  bytes: encoder.encode(text),
  fileName,
  mediaType: "text/markdown",
  url,
  classification: "INTERNAL",
  acl
})

export const issueExternalId = (owner: string, repo: string, issue: Pick<Issue, "number" | "pull_request">) =>
  `${owner}/${repo}/${issue.pull_request ? "pull" : "issues"}/${issue.number}`
export const discussionExternalId = (owner: string, repo: string, number: number) => `${owner}/${repo}/discussions/${number}`
export const fileExternalId = (owner: string, repo: string, path: string) => `${owner}/${repo}/blob/${path}`

/** An issue (or a pull request's description) with its comments (or review comments), one Markdown document. */
export const issueDocument = (owner: string, repo: string, issue: Issue, comments: ReadonlyArray<IssueComment | ReviewComment>, acl: NativeAcl | null): SourceDocument => {
  const pull = issue.pull_request !== undefined && issue.pull_request !== null
  const state = pull && issue.pull_request?.merged_at ? "merged" : issue.state
  const labels = (issue.labels ?? []).map((label) => (typeof label === "string" ? label : label.name)).filter(Boolean)
  const lines = [
    `# ${issue.title}`,
    "",
    `${pull ? "Pull request" : "Issue"} #${issue.number} in ${owner}/${repo} · ${state} · opened by ${who(issue.user)} on ${day(issue.created_at)}${labels.length ? ` · labels: ${labels.join(", ")}` : ""}${issue.assignee ? ` · assigned to ${who(issue.assignee)}` : ""}`,
    "",
    issue.body ?? ""
  ]
  if (comments.length > 0) {
    lines.push("", pull ? "## Review comments" : "## Comments")
    for (const comment of comments) {
      const path = "path" in comment && comment.path ? ` on \`${comment.path}\`${comment.line ? ` line ${comment.line}` : ""}` : ""
      lines.push("", `**${who(comment.user)}** (${day(comment.created_at)})${path}:`, "", comment.body ?? "")
    }
  }
  return markdown(issueExternalId(owner, repo, issue), issue.title, `${pull ? "pull" : "issue"}-${issue.number}.md`, httpsUrl(issue.html_url), lines.join("\n"), acl)
}

export const discussionDocument = (owner: string, repo: string, discussion: DiscussionNode, acl: NativeAcl | null): SourceDocument => {
  const lines = [
    `# ${discussion.title}`,
    "",
    `Discussion #${discussion.number} in ${owner}/${repo}${discussion.category ? ` · ${discussion.category.name}` : ""} · started by ${who(discussion.author)} on ${day(discussion.createdAt)}`,
    "",
    discussion.body
  ]
  if (discussion.comments.nodes.length > 0) {
    lines.push("", "## Comments")
    for (const comment of discussion.comments.nodes) lines.push("", `**${who(comment.author)}** (${day(comment.createdAt)}):`, "", comment.body)
  }
  return markdown(discussionExternalId(owner, repo, discussion.number), discussion.title, `discussion-${discussion.number}.md`, httpsUrl(discussion.url), lines.join("\n"), acl)
}

export const fileDocument = (owner: string, repo: string, branch: string, path: string, bytes: Uint8Array, webBase: string | null, acl: NativeAcl | null): SourceDocument => {
  const name = path.split("/").at(-1) ?? path
  return {
    externalId: fileExternalId(owner, repo, path),
    title: `${repo}/${path}`,
    bytes,
    fileName: name,
    mediaType: "text/markdown",
    url: webBase ? `${webBase}/blob/${encodeURIComponent(branch)}/${path.split("/").map(encodeURIComponent).join("/")}` : null,
    classification: "INTERNAL",
    acl
  }
}
