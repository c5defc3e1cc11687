import type { Version2Models, Version3Models } from "jira.js"
import type { LoreSettings } from "../../Config"
import { atlassianClient } from "../atlassian/Client"
import { VendorError } from "../VendorHttp"
import type { JiraConfig, JiraCredential } from "./Config"

/** Why a request to Jira gave nothing usable: the status when it answered (401, 403, 404, 5xx), else 0. */
export class JiraError extends VendorError {}

/**
 * Jira's REST API over the shared Atlassian client (atlassian/Client.ts, through the outbound guard): Cloud's v3
 * (descriptions and comments in ADF) or Data Center's v2 (wiki markup). jira.js gives the response types only: its
 * requests go through axios, which would bypass the address guard (docs/decisions.md).
 */
export const jiraClient = (config: JiraConfig, credential: JiraCredential, settings: LoreSettings) => {
  const client = atlassianClient(config.baseUrl, credential, settings, "Jira", (status, code, message) => new JiraError(status, code, message))
  return { ...client, api: config.deployment === "CLOUD" ? "/rest/api/3" : "/rest/api/2", cloud: config.deployment === "CLOUD" }
}

export type JiraClient = ReturnType<typeof jiraClient>

/** A user as either deployment names one (Cloud: accountId; Data Center: name and key). */
export type JiraUser = Pick<Version3Models.UserDetails, "accountId" | "name" | "key" | "emailAddress" | "displayName" | "active" | "accountType">

/** The fields Lore asks for (search and issue GET name them), as both API versions answer them; null where Jira leaves a field empty. */
export interface JiraIssueFields {
  readonly summary?: string
  readonly description?: Version3Models.Document | string | null
  readonly status?: Version3Models.StatusDetails | null
  readonly assignee?: JiraUser | null
  readonly reporter?: JiraUser | null
  readonly labels?: ReadonlyArray<string>
  readonly updated?: string
  readonly project?: Pick<Version3Models.Project, "key" | "id" | "name">
  readonly security?: Version3Models.SecurityLevel | null
  readonly comment?: { readonly comments?: ReadonlyArray<Version3Models.Comment | Version2Models.Comment>; readonly total?: number; readonly maxResults?: number; readonly startAt?: number }
  /** Custom fields (user pickers among them): a user, a list of users, or anything else. */
  readonly [customField: `customfield_${string}`]: unknown
}

export type JiraIssue = Omit<Version3Models.Issue, "fields"> & { readonly fields: JiraIssueFields }

/**
 * A Jira user's native id: Cloud's accountId, Data Center's username (what its permission holders and role actors
 * name). Cloud answers accountId "unknown" for a user its privacy settings hide: that names nobody.
 */
export const jiraUserId = (user: Pick<JiraUser, "accountId" | "name" | "key">) =>
  (user.accountId && user.accountId !== "unknown" ? user.accountId : "") || user.name || user.key || ""
