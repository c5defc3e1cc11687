import { HttpApi, OpenApi } from "@effect/platform"
import { KnowledgeSpacesApi } from "../access/Api"
import { AiAdminApi } from "../ai/Api"
import { AssistantAdminApi, AssistantApi } from "../assistant/Api"
import { AssistantFilesApi } from "../assistant/files/Api"
import { AssistantEvidenceApi } from "../assistant/evidence/Api"
import { AssetsApi } from "../assets/Api"
import { AssetDeliveryApi } from "../assets/DeliveryApi"
import { AssetToolsApi } from "../assets/ToolsApi"
import { SkillsApi } from "../assets/skills/Api"
import { publishedPayloadSchemas } from "../assets/Payloads"
import { BulkPushedDocument } from "../connectors/Api"
import { AccessAdminApi } from "../access/AdminApi"
import { InvitationsApi, UsersAdminApi } from "../identity/AdminApi"
import { AuditApi } from "../platform/AuditApi"
import { GraphApi } from "../graph/Api"
import { KnowledgeApi, SourcesApi } from "../knowledge/Api"
import { MeApi, SessionApi } from "../identity/Api"
import { SsoAdminApi, SsoSessionApi } from "../identity/sso/Api"
import { PlatformApi } from "../platform/Api"
import { ProvisioningAdminApi } from "../provisioning/Api"
import { ConnectorsAdminApi, IndexingApi, SourceIdentityApi } from "../connectors/Api"
import { InternalError, MalformedBody, PayloadTooLarge, Problem, ValidationFailed } from "../domain/Errors"
import { problemDocument } from "./OpenApiDocument"

/** The whole contract: every area's group under /api. */
export class LoreApi extends HttpApi.make("lore")
  .add(PlatformApi)
  .add(SessionApi)
  .add(MeApi)
  .add(KnowledgeSpacesApi)
  .add(InvitationsApi)
  .add(UsersAdminApi)
  .add(AccessAdminApi)
  .add(AuditApi)
  .add(AiAdminApi)
  .add(SourcesApi)
  .add(KnowledgeApi)
  .add(GraphApi)
  .add(AssistantApi)
  .add(AssistantAdminApi)
  .add(AssistantFilesApi)
  .add(AssistantEvidenceApi)
  .add(AssetsApi)
  .add(AssetDeliveryApi)
  .add(AssetToolsApi)
  .add(SkillsApi)
  .add(ProvisioningAdminApi)
  .add(ConnectorsAdminApi)
  .add(SourceIdentityApi)
  .add(IndexingApi)
  .add(SsoSessionApi)
  .add(SsoAdminApi)
  .addError(InternalError)
  .prefix("/api")
  .annotate(OpenApi.Title, "Lore API")
  .annotate(OpenApi.Version, "0.1.0")
  .annotate(OpenApi.Description, "Permission-aware knowledge assistant and governed AI asset registry")
  .annotate(HttpApi.AdditionalSchemas, [Problem, ValidationFailed, MalformedBody, PayloadTooLarge, ...publishedPayloadSchemas, BulkPushedDocument])
  .annotate(OpenApi.Transform, problemDocument) {}
