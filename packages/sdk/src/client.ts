import createClient from "openapi-fetch"
import { AdminArea } from "./areas/admin"
  }
}

export type LoreClient = ReturnType<typeof createLoreClient>

const invalidBaseUrl = (detail: string) => LoreApiError.client("INVALID_BASE_URL", "Invalid Base URL", detail)

/**
 * Refuses at construction what would otherwise fail on the first request as a confusing NETWORK_ERROR
 * (`localhost:8787`, which parses as the scheme `localhost:`) or silently build wrong URLs (a query or
 * fragment, which the /api paths would be appended to). Answers the URL without trailing slashes.
 */
const checkedBaseUrl = (value: unknown): string => {
  const example = "give the server's root with its scheme, e.g. http://127.0.0.1:8787"
  if (typeof value !== "string" || value.trim() === "") throw invalidBaseUrl(`baseUrl is required: ${example}`)
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw invalidBaseUrl(`baseUrl is not an absolute URL: ${example}`)
  }
  // Not echoed whole: a URL may carry credentials (user:password@host).
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidBaseUrl(`baseUrl has the scheme '${url.protocol}', not http: or https:; ${example}`)
  if (url.search || url.hash) throw invalidBaseUrl(`baseUrl must not have a query or fragment: ${example}`)
  return value.trim().replace(/\/+$/, "")
}
