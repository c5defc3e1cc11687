import { ProblemError } from "../domain/Errors"

export class RepositoryRefused extends ProblemError<RepositoryRefused>()("RepositoryRefused", {
  status: 422, code: "REPOSITORY_NOT_ALLOWED", description: "The repository's host or transport is not allowed (LORE_REPO_ALLOWED_HOSTS, LORE_REPO_ALLOW_FILE), its host is a loopback or private address (LORE_ALLOWED_PRIVATE_HOSTS; errors[].code ADDRESS_NOT_ALLOWED), or its address holds credentials"
}) {}

export class RepositoryFetchFailed extends ProblemError<RepositoryFetchFailed>()("RepositoryFetchFailed", {
  status: 502, code: "REPOSITORY_FETCH_FAILED", description: "The repository could not be fetched at that revision (unreachable, not found, refused credentials, a redirect, a timeout)"
}) {}
