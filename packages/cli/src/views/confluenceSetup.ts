import type { Command } from "commander"
import type { Runtime } from "../context"
import { atlassianConfig, atlassianCredential, type AtlassianFlags, type AtlassianProduct } from "./atlassianSetup"

/** The guided setup of `lore connectors add --kind CONFLUENCE` (atlassianSetup.ts): the spaces to crawl. */
export const withConfluenceFlags = (command: Command) =>
  command.option("--spaces <keys>", "CONFLUENCE: the space keys to crawl, comma-separated")

export interface ConfluenceFlags extends AtlassianFlags {
  readonly spaces?: string
}

const CONFLUENCE: AtlassianProduct = {
  listField: "spaces",
  listFlag: "--spaces",
  listLabel: "Space keys, comma-separated:",
  cloudUrlLabel: "Site URL (https://<site>.atlassian.net/wiki):",
  dataCenterUrlLabel: "Base URL (with its context path, e.g. https://wiki.example.com):",
  tokenLabel: "API token (id.atlassian.com > Security > API tokens):"
}

export const confluenceConfig = (runtime: Runtime, flags: ConfluenceFlags, base: Readonly<Record<string, unknown>>) =>
  atlassianConfig(runtime, flags, flags.spaces, base, CONFLUENCE)

export const confluenceCredential = (runtime: Runtime, flags: ConfluenceFlags, deployment: string) =>
  atlassianCredential(runtime, flags, deployment, CONFLUENCE)
