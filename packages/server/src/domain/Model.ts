import { Schema } from "effect"

/** Sensitivity of content, lowest first. */
export const Classification = Schema.Literal("PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED").annotations({
  identifier: "Classification",
  description: "How sensitive content is, lowest first: PUBLIC < INTERNAL < CONFIDENTIAL < RESTRICTED"
})
export type Classification = typeof Classification.Type
export const classificationRank: Record<Classification, number> = { PUBLIC: 0, INTERNAL: 1, CONFIDENTIAL: 2, RESTRICTED: 3 }

/** A user's clearance: the highest classification they may read. */
export const Clearance = Schema.Literal("PUBLIC", "STANDARD", "CONFIDENTIAL", "RESTRICTED").annotations({
  identifier: "Clearance",
  description: "The highest classification a user may read: PUBLIC reads PUBLIC; STANDARD reads PUBLIC and INTERNAL; CONFIDENTIAL adds CONFIDENTIAL; RESTRICTED reads everything"
})
export type Clearance = typeof Clearance.Type
export const clearanceCeiling: Record<Clearance, Classification> = {
  PUBLIC: "PUBLIC",
  STANDARD: "INTERNAL",
  CONFIDENTIAL: "CONFIDENTIAL",
  RESTRICTED: "RESTRICTED"
}

/** The classifications a clearance reads, lowest first. */
export const readableClassifications = (clearance: Clearance): Array<Classification> =>
  Classification.literals.filter((c) => classificationRank[c] <= classificationRank[clearanceCeiling[clearance]])

/** A user's organizational role. */
export const UserRole = Schema.Literal("EMPLOYEE", "MANAGER", "ADMIN").annotations({ identifier: "UserRole" })
export type UserRole = typeof UserRole.Type

/** Platform roles: capabilities over Lore itself, held in addition to the user role. */
export const PlatformRole = Schema.Literal("ORG_ADMIN", "KNOWLEDGE_ADMIN", "ASSET_REVIEWER", "CONNECTOR_ADMIN", "AUDITOR").annotations({ identifier: "PlatformRole" })
export type PlatformRole = typeof PlatformRole.Type

/** Relations on a knowledge space, weakest first; each includes the ones before it. */
export const SpaceRelation = Schema.Literal("viewer", "contributor", "curator", "manager").annotations({ identifier: "SpaceRelation" })
export type SpaceRelation = typeof SpaceRelation.Type
export const relationRank: Record<SpaceRelation, number> = { viewer: 0, contributor: 1, curator: 2, manager: 3 }

export const GrantKind = Schema.Literal("ORGANIZATION", "DEPARTMENT", "DEPARTMENT_MANAGERS", "ROLE", "USER", "GROUP").annotations({ identifier: "GrantKind" })
export type GrantKind = typeof GrantKind.Type

/** The outcome of one access check. */
export const AccessState = Schema.Literal("ALLOWED", "DENIED").annotations({ identifier: "AccessState" })
export type AccessState = typeof AccessState.Type
