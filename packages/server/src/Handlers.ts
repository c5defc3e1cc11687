import { Settings } from "./Config"
import { AccessEvaluator } from "./access/Evaluator"
import { AccessExplainer } from "./access/Explain"
import { AccessAdminHttp, KnowledgeSpacesHttp } from "./access/Http"
import { Spaces } from "./access/Spaces"
import { Gateways } from "./ai/Gateways"
import { AiAdminHttp } from "./ai/Http"
import { Routes } from "./ai/Routes"
import { Usage } from "./ai/Usage"
import { Assets } from "./assets/Assets"
import { AssetDeletion } from "./assets/Deletion"
import { Delivery } from "./assets/Delivery"
import { AssetFeedback } from "./assets/Feedback"
import { Governance } from "./assets/Governance"
import { AssetDeliveryHttp, AssetToolsHttp, AssetsHttp } from "./assets/Http"
import { SpacePolicies } from "./assets/SpacePolicies"
import { AssetTools } from "./assets/Tools"
import { SkillsHttp } from "./assets/skills/Http"
import { SkillImports } from "./assets/skills/Imports"
import { Skills } from "./assets/skills/Skills"
import { SkillTargets } from "./assets/skills/Targets"
import { Chat } from "./assistant/Chat"
import { Conversations } from "./assistant/Conversations"
import { AssistantAdminHttp, AssistantHttp } from "./assistant/Http"
import { Retrieval } from "./assistant/Retrieval"
import { Starters } from "./assistant/Starters"
import { Evidence } from "./assistant/evidence/Evidence"
import { AssistantEvidenceHttp } from "./assistant/evidence/Http"
import { AssistantFiles } from "./assistant/files/Files"
import { AssistantFilesHttp } from "./assistant/files/Http"
import { ConnectorConnections } from "./connectors/Connections"
import { ConnectorsAdminHttp, IndexingHttp, SourceIdentityHttp } from "./connectors/Http"
import { SourceIdentity } from "./connectors/Identity"
import { Indexing } from "./connectors/Indexing"
import { Migrated } from "./db/Migrations"
import { Database } from "./db/Sql"
import { Authentication, Authorization } from "./domain/Security"
import { GraphCurations } from "./graph/Curations"
import { GraphExplorerService } from "./graph/Explorer"
import { GraphJobs } from "./graph/GraphJobs"
import { GraphHttp } from "./graph/Http"
import { Authenticator } from "./identity/Authenticator"
import { Departments } from "./identity/Departments"
import { Directory } from "./identity/Directory"
import { InvitationsHttp, MeHttp, SessionHttp, UsersAdminHttp } from "./identity/Http"
import { Invitations } from "./identity/Invitations"
import { Roles } from "./identity/Roles"
import { Sessions } from "./identity/Sessions"
import { Tokens } from "./identity/Tokens"
import { Users } from "./identity/Users"
import { SsoAdminHttp, SsoSessionHttp } from "./identity/sso/Http"
import { Sso } from "./identity/sso/Sso"
import { KnowledgeHttp, SourcesHttp } from "./knowledge/Http"
import { KnowledgeSearch } from "./knowledge/Search"
import { Sources } from "./knowledge/Sources"
import { AuditTrail } from "./platform/Audit"
import { EmbeddingStatus } from "./platform/EmbeddingStatus"
import { AuditHttp, PlatformHttp } from "./platform/Http"
import { ProvisioningConnections } from "./provisioning/Connections"
import { ProvisioningAdminHttp } from "./provisioning/Http"
import { groupWith } from "./http/GroupContext"

/**
 * Every area's handler groups, each built in a context of only the services it uses (http/GroupContext.ts:
 * HttpApiBuilder copies a group's build context into each of its requests). The lists are checked against
 * each group's requirements: a service a group starts using fails the build until it is listed here.
 */
export const HandlerGroups = [
  groupWith(PlatformHttp, [EmbeddingStatus, Database, Migrated]),
  groupWith(AuditHttp, [Authentication, Authorization, AuditTrail]),
  groupWith(SessionHttp, [Authentication, Authenticator, Settings, Sessions]),
  groupWith(MeHttp, [Authentication, Tokens, Directory]),
  groupWith(UsersAdminHttp, [Authentication, Authorization, Users, Roles, Departments, Invitations]),
  groupWith(InvitationsHttp, [Invitations]),
  groupWith(KnowledgeSpacesHttp, [Authentication, AccessEvaluator]),
  groupWith(AccessAdminHttp, [Authentication, Authorization, Spaces, AccessExplainer]),
  groupWith(SourcesHttp, [Authentication, Sources]),
  groupWith(KnowledgeHttp, [Authentication, KnowledgeSearch]),
  groupWith(GraphHttp, [Authentication, GraphJobs, GraphExplorerService, GraphCurations]),
  groupWith(AiAdminHttp, [Authentication, Authorization, Routes, Gateways, Usage]),
  groupWith(AssistantHttp, [Authentication, Chat, Retrieval, Conversations, Starters]),
  groupWith(AssistantAdminHttp, [Authentication, Authorization, Starters]),
  groupWith(AssistantFilesHttp, [Authentication, AssistantFiles]),
  groupWith(AssistantEvidenceHttp, [Authentication, Evidence]),
  groupWith(AssetsHttp, [Authentication, Authorization, Assets, SpacePolicies, AssetDeletion, AssetFeedback, Governance]),
  groupWith(AssetDeliveryHttp, [Authentication, Delivery]),
  groupWith(AssetToolsHttp, [Authentication, AssetTools]),
  groupWith(SkillsHttp, [Authentication, Skills, SkillTargets, SkillImports]),
  groupWith(ProvisioningAdminHttp, [Authentication, Authorization, ProvisioningConnections]),
  groupWith(ConnectorsAdminHttp, [Authentication, Authorization, ConnectorConnections]),
  groupWith(SourceIdentityHttp, [Authentication, Authorization, SourceIdentity]),
  groupWith(IndexingHttp, [Indexing]),
  groupWith(SsoSessionHttp, [Settings, Sso]),
  groupWith(SsoAdminHttp, [Authentication, Authorization, Sso])
] as const
