import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { isPublic } from "../domain/Security"

export const Health = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
  identifier: "Health",
  description: "status, version, database (embedded|postgresql), databaseVersion, vectorSearch (pgvector|exact-cosine|off: off without an embedding model), vectorStore (pgvector|exact-cosine), embeddingModel (the search index's active generation: model (N dimensions), or none), embeddingSource (ENVIRONMENT|ADMIN|none), migrationLevel, uptimeSeconds"
})

export class PlatformApi extends HttpApiGroup.make("platform")
  .add(HttpApiEndpoint.get("getHealth", "/health").addSuccess(Health).pipe(isPublic))
  .annotate(OpenApi.Title, "Platform") {}
