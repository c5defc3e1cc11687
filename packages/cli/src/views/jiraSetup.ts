import type { Command } from "commander"
import type { Runtime } from "../context"
import { atlassianConfig, atlassianCredential, type AtlassianFlags, type AtlassianProduct } from "./atlassianSetup"

/**
 * The guided setup of `lore connectors add --kind JIRA` (atlassianSetup.ts, shared with CONFLUENCE): the projects to
 * crawl. The token must be a Jira administrator's: permission schemes are readable by administrators only, and
 * without them the issues admit nobody (the prompt says so).
 */
export const withJiraFlags = (command: Command) =>
  command.option("--projects <keys>", "JIRA: the project keys to crawl, comma-separated")

export interface JiraFlags extends AtlassianFlags {
  readonly projects?: string
}

const JIRA: AtlassianProduct = {
  listField: "projects",
  listFlag: "--projects",
  listLabel: "Project keys, comma-separated:",
  cloudUrlLabel: "Site URL (https://<site>.atlassian.net):",
  dataCenterUrlLabel: "Base URL (with its context path, e.g. https://jira.example.com):",
  tokenLabel: "API token of a Jira administrator's account (id.atlassian.com > Security > API tokens; Lore reads permission schemes, which need Administer Jira):"
}

export const jiraConfig = (runtime: Runtime, flags: JiraFlags, base: Readonly<Record<string, unknown>>) =>
  atlassianConfig(runtime, flags, flags.projects, base, JIRA)

export const jiraCredential = (runtime: Runtime, flags: JiraFlags, deployment: string) =>
  atlassianCredential(runtime, flags, deployment, JIRA)
