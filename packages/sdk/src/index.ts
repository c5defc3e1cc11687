export { createLoreClient, type LoreClient, type LoreClientOptions, type LoreFetchClient } from "./client"
export { LoreApiError } from "./errors"
export { paginate, type Page } from "./paginate"
export { unwrap, unwrapEmpty, type FetchResult } from "./response"
export { withRetry, retryAfterMs, type RetryOptions, type FetchLike } from "./retry"
export { CookieJar } from "./cookies"
export type { AuthMode } from "./credentials"
export type * from "./types"
export type { paths, components, operations } from "./generated/openapi"
export { PlatformArea } from "./areas/platform"
export { SessionArea } from "./areas/session"
export { MeArea } from "./areas/me"
export { TokensArea } from "./areas/tokens"
export { KnowledgeSpacesArea } from "./areas/knowledgeSpaces"
export { InvitationsArea } from "./areas/invitations"
export { SourcesArea, type UploadOptions, type WaitOptions } from "./areas/sources"
export { KnowledgeArea, CitationsArea, type CitedFile } from "./areas/knowledge"
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
  AdminAuditArea
} from "./areas/admin"
export { SDK_VERSION } from "./version"
