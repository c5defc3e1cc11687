import type { LoreSettings } from "../../Config"
import { atlassianClient } from "../atlassian/Client"
import { VendorError } from "../VendorHttp"
import type { ConfluenceConfig, ConfluenceCredential } from "./Config"

/** Why a request to Confluence gave nothing usable: the status when it answered (401, 403, 404, 5xx), else 0. */
export class ConfluenceError extends VendorError {}

/** Confluence's REST API (v1, which Cloud and Data Center both speak) over the shared Atlassian client (atlassian/Client.ts). */
export const confluenceClient = (config: ConfluenceConfig, credential: ConfluenceCredential, settings: LoreSettings) =>
  atlassianClient(config.baseUrl, credential, settings, "Confluence", (status, code, message) => new ConfluenceError(status, code, message))

export type ConfluenceClient = ReturnType<typeof confluenceClient>
