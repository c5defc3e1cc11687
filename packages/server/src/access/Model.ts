import { Schema } from "effect"

/** Sensitivity of content, lowest first. */
export const Classification = Schema.Literal("PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED")
export type Classification = typeof Classification.Type
export const classificationRank: Record<Classification, number> = { PUBLIC: 0, INTERNAL: 1, CONFIDENTIAL: 2, RESTRICTED: 3 }

/** A user's clearance: the highest classification they may read. */
export const Clearance = Schema.Literal("PUBLIC", "STANDARD", "CONFIDENTIAL", "RESTRICTED")
export type Clearance = typeof Clearance.Type
export const clearanceCeiling: Record<Clearance, Classification> = {
  PUBLIC: "PUBLIC",
  STANDARD: "INTERNAL",
  CONFIDENTIAL: "CONFIDENTIAL",
  RESTRICTED: "RESTRICTED"
}

/** A user's organizational role. */
export const UserRole = Schema.Literal("EMPLOYEE", "MANAGER", "ADMIN")
export type UserRole = typeof UserRole.Type

/** Platform roles: capabilities over Lore itself, held in addition to the user role. */
export const PlatformRole = Schema.Literal("ORG_ADMIN", "KNOWLEDGE_ADMIN", "ASSET_REVIEWER", "CONNECTOR_ADMIN", "AUDITOR")
export type PlatformRole = typeof PlatformRole.Type

/** Relations on a knowledge space, weakest first; each includes the ones before it. */
export const SpaceRelation = Schema.Literal("viewer", "contributor", "curator", "manager")
export type SpaceRelation = typeof SpaceRelation.Type
export const relationRank: Record<SpaceRelation, number> = { viewer: 0, contributor: 1, curator: 2, manager: 3 }

export const GrantKind = Schema.Literal("ORGANIZATION", "DEPARTMENT", "DEPARTMENT_MANAGERS", "ROLE", "USER")
export type GrantKind = typeof GrantKind.Type
