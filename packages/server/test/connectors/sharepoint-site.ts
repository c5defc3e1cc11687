// The loopback Entra, Graph and SharePoint REST tenant lives in packages/test-support so the CLI's tests can start it too.
import type { SiteGroupMember as LoreSiteGroupMember } from "../../src/connectors/sharepoint/Groups"
import type { SiteGroupMember } from "../../../test-support/sharepoint-site"

export * from "../../../test-support/sharepoint-site"

// What the tenant answers must be what Lore reads: a fixture of another shape fails tsc -b here.
export const siteGroupMembersAsLoreReadsThem = (members: ReadonlyArray<SiteGroupMember>): ReadonlyArray<LoreSiteGroupMember> => members
