// The loopback GitHub lives in packages/test-support so the CLI's tests can start it too.
import type { SamlIdentitiesAnswer, VerifiedEmailsAnswer } from "../../src/connectors/github/Access"
import type { DiscussionsAnswer } from "../../src/connectors/github/Render"
import type { discussionsAnswer, samlAnswer, verifiedEmailsAnswer } from "../../../test-support/github-site"

export * from "../../../test-support/github-site"

// What the fake's GraphQL answers must be is what Lore reads: a fixture of another shape fails tsc -b here
// (GitHub publishes no TypeScript types for its GraphQL schema; REST fixtures satisfy @octokit/openapi-types there).
export const graphqlAnswersAsLoreReadsThem = (
  saml: ReturnType<typeof samlAnswer>["data"],
  verified: ReturnType<typeof verifiedEmailsAnswer>["data"],
  discussions: Extract<ReturnType<typeof discussionsAnswer>["data"], { repository: object }>
): readonly [SamlIdentitiesAnswer, VerifiedEmailsAnswer, DiscussionsAnswer] => [saml, verified, discussions]
