export { createLoreClient, type LoreClient, type LoreClientOptions, type LoreFetchClient } from "./client"
export { LoreApiError, isLoreError, type ClientErrorCode, type LoreErrorCode, type ProblemWithCode } from "./errors"
export type { ErrorCode, OperationName, Operation, QueryOf, ServerErrorCode } from "./operations"
export { paginate, type Page } from "./paginate"
export { assetPayload, type AssetPayload, type AssetPayloads } from "./payload"
export { unwrap, unwrapEmpty, type FetchResult } from "./response"
export { withRetry, retryAfterMs, type RetryOptions, type FetchLike } from "./retry"
export { CookieJar } from "./cookies"
export type { AuthMode } from "./credentials"
// Every schema of the document as a named type (Source, Classification, ...), `paths`/`components`/
// `operations`, and each enumeration's values as an array (classificationValues, clearanceValues, ...).
export * from "./generated/openapi"
export type { WithDates } from "./query"
export { PlatformArea } from "./areas/platform"
export { SessionArea } from "./areas/session"
export { MeArea } from "./areas/me"
export { TokensArea } from "./areas/tokens"
export { IndexingArea } from "./areas/indexing"
export { KnowledgeSpacesArea } from "./areas/knowledgeSpaces"
export { InvitationsArea } from "./areas/invitations"
export { SourcesArea, type SourceQuery, type UploadOptions, type WaitOptions } from "./areas/sources"
export { AssetsArea } from "./areas/assets"
export { AssetToolsArea } from "./areas/assetTools"
export { SkillsArea, packageDigest, type SkillCreateOptions, type SkillDraftOptions, type SkillPackage, type SkillPackageUpload } from "./areas/skills"
export { GraphArea, type ExplorerQuery, type GraphJobWaitOptions } from "./areas/graph"
export { KnowledgeArea, CitationsArea, type CatalogQuery, type CitedFile, type SearchQuery } from "./areas/knowledge"
export { AssistantFilesArea, type AssistantFileQuery, type AssistantFileUploadOptions, type AssistantFileWaitOptions } from "./areas/assistantFiles"
export { AssistantEvidenceArea, type EvidenceUploadOptions, type EvidenceWaitOptions } from "./areas/assistantEvidence"
export { multipartBody, mediaTypeFor, type MultipartBody, type MultipartFile, type UploadProgress, type UploadSource } from "./multipart"
export { fileNameFrom, type DownloadedFile } from "./download"
export {
  AdminArea,
  AdminUsersArea,
  AdminDepartmentsArea,
  AdminRolesArea,
  AdminInvitationsArea,
  AdminSpacesArea,
  AdminAccessArea,
  AdminAuditArea,
  AdminAiArea,
  AdminAssistantArea,
  AdminProvisioningArea,
  AdminConnectorsArea,
  AdminSourceIdentityArea,
  AdminSsoArea,
  ssoStartUrl,
  type AuditQuery
} from "./areas/admin"
export { AssistantArea, type ChatInput } from "./areas/assistant"
export { ChatStream, collectAnswer, emptyAnswer, foldAnswer, readChatParts, type ChatAnswer, type ChatNotice, type ChatStreamPart, type ChatToolStep } from "./chat"
export { SDK_VERSION } from "./version"
