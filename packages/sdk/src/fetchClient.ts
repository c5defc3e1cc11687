import type { Client } from "openapi-fetch"
import type { paths } from "./generated/openapi"

/**
 * The openapi-fetch client every area shares (`lore.raw` too). No media-type filter: error bodies are
 * `application/problem+json`, and filtering on `application/json` would type them as `never`.
 * Its own module, so areas and the client factory (which imports every area) form no import cycle.
 */
export type LoreFetchClient = Client<paths>
