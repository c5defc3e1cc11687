import { ProblemError } from "../domain/Errors"

export class KnowledgeSpaceNotFound extends ProblemError<KnowledgeSpaceNotFound>()("KnowledgeSpaceNotFound", {
  status: 404, code: "KNOWLEDGE_SPACE_NOT_FOUND", description: "No knowledge space with this id that the caller may see"
}) {}

export class KnowledgeSpaceKeyTaken extends ProblemError<KnowledgeSpaceKeyTaken>()("KnowledgeSpaceKeyTaken", {
  status: 409, code: "KNOWLEDGE_SPACE_KEY_TAKEN", description: "A knowledge space with this key exists already"
}) {}

export class InvalidGrant extends ProblemError<InvalidGrant>()("InvalidGrant", {
  status: 400, code: "INVALID_GRANT", description: "The grant's subject fields do not fit its kind"
}) {}

export class GrantNotFound extends ProblemError<GrantNotFound>()("GrantNotFound", {
  status: 404, code: "GRANT_NOT_FOUND", description: "The knowledge space has no such grant"
}) {}

export class ResourceNotFound extends ProblemError<ResourceNotFound>()("ResourceNotFound", {
  status: 404, code: "RESOURCE_NOT_FOUND", description: "No resource of this type and id in the organization"
}) {}

export class LastSpaceManager extends ProblemError<LastSpaceManager>()("LastSpaceManager", {
  status: 409, code: "LAST_SPACE_MANAGER", description: "A knowledge space keeps at least one effective manager grant"
}) {}
