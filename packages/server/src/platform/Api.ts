import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"

export const Health = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({
  identifier: "Health",
  description: "status, database (embedded|postgresql), databaseVersion, vectorSearch, migrationLevel, version"
})

export class PlatformApi extends HttpApiGroup.make("platform")
  .add(HttpApiEndpoint.get("getHealth", "/health").addSuccess(Health))
  .annotate(OpenApi.Title, "Platform") {}
