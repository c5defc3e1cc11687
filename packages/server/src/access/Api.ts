import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { authenticated } from "../domain/Security"

export const KnowledgeSpaceRef = Schema.Struct({
  id: Schema.UUID,
  key: Schema.String,
  name: Schema.String,
  departmentId: Schema.NullOr(Schema.UUID)
}).annotations({ identifier: "KnowledgeSpaceRef" })

export class KnowledgeSpacesApi extends HttpApiGroup.make("knowledgeSpaces")
  .add(HttpApiEndpoint.get("listVisible", "/knowledge-spaces/visible").addSuccess(Schema.Array(KnowledgeSpaceRef)).pipe(authenticated))
  .add(HttpApiEndpoint.get("listUploadTargets", "/knowledge-spaces/upload-targets").addSuccess(Schema.Array(KnowledgeSpaceRef)).pipe(authenticated))
  .annotate(OpenApi.Title, "Knowledge spaces")
  .annotate(OpenApi.Description, "Knowledge spaces the caller may read (viewer) or upload to (contributor)") {}
