import { Deferred, Effect, FiberId, FiberRef, Option } from "effect"
import { AccessRepo, type MatchedGrant } from "./AccessRepo"
import type { Principal } from "../domain/Principal"
import { type Classification, classificationRank, type Clearance, clearanceCeiling, relationRank, type SpaceRelation } from "../domain/Model"

/**
 * The caller's access keys: every grant subject they match. A grant matches when its subject_key is
 * one of these, so read paths filter inside SQL with `subject_key = ANY(keys)`.
 */
export const accessKeys = (
  principal: Pick<Principal, "userId" | "departmentId" | "role" | "platformRoles">,
  managedDepartments: ReadonlyArray<string>,
  groups: ReadonlyArray<string> = []
): Array<string> => [
  "ORGANIZATION",
  `DEPARTMENT:${principal.departmentId}`,
  ...managedDepartments.map((id) => `DEPARTMENT_MANAGERS:${id}`),
  `ROLE:${principal.role}`,
  ...principal.platformRoles.map((role) => `ROLE:${role}`),
  `USER:${principal.userId}`,
  // Provisioned groups (SCIM) the user belongs to.
  ...groups.map((id) => `GROUP:${id}`)
]

export type { MatchedGrant, SpaceRow } from "./AccessRepo"

export const relationsAtLeast = (relation: SpaceRelation) =>
  (Object.keys(relationRank) as Array<SpaceRelation>).filter((r) => relationRank[r] >= relationRank[relation])

/**
 * What a caller may read, resolved once per request and handed to SQL as parameters: the spaces they
 * view, their clearance ceiling, and their source-principal keys for items that carry a source ACL.
 */
export interface ReadScope {
  readonly userId: string
  readonly organizationId: string
  readonly spaceIds: ReadonlyArray<string>
  /** Of `spaceIds`, those whose graph retrieval is on (the assistant adds passages from their graphs). */
  readonly graphRetrievalSpaceIds: ReadonlyArray<string>
  readonly maxClassificationRank: number
  readonly sourcePrincipalKeys: ReadonlyArray<string>
  /** Ids of the key sets (acl_all) the caller satisfies. */
  readonly sourceSetKeys?: ReadonlyArray<string> | undefined
}

/** The branches of the access model, checked in order by both the SQL filter and the explanation. */
/**
 * Read scopes shared by one unit of work: an assistant chat resolves the caller's scope once for its planning,
 * searches and graph retrieval (a grant revoked mid-chat applies from the next chat). Unset, each read resolves it.
 * Each scope is resolved once even when two reads ask at the same time (search and graph retrieval run together):
 * the first starts it, the others wait for it.
 */
export type SharedReadScopes = Map<string, Deferred.Deferred<ReadScope>>
const sharedReadScopes = FiberRef.unsafeMake<Option.Option<SharedReadScopes>>(Option.none())

/** Runs `effect` with one read scope per caller: the one already shared around it, or its own. */
export const sharingReadScopes = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FiberRef.get(sharedReadScopes), (shared) => (Option.isSome(shared) ? effect : Effect.locally(effect, sharedReadScopes, Option.some(new Map()))))

/** Runs `effect` with one read scope per caller, `scopes`: shared with every fiber given the same holder. */
export const withReadScopes = (scopes: SharedReadScopes) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.locally(effect, sharedReadScopes, Option.some(scopes))

export interface AccessFacts {
  readonly userActive: boolean
  readonly spaceActive: boolean
  readonly grants: ReadonlyArray<MatchedGrant>
  readonly classification: Classification | null
  readonly clearanceCeiling: Classification
  /**
   * null when the item carries no source ACL (uploaded content); else whether the caller maps into it, and when not,
   * the reason code (SOURCE_ACL_DENIED, or SOURCE_ACL_UNRESOLVED when the source's permissions could not be read).
   */
  readonly sourceAcl: null | { readonly allowed: boolean; readonly reason: string; readonly reasonCode?: string }
}

export type Decision =
  | { readonly allowed: true; readonly reasonCode: "GRANTED"; readonly grant: MatchedGrant }
  | { readonly allowed: false; readonly reasonCode: string; readonly branch: string; readonly kind: string; readonly detail: string }

/** The decision for one resource, from its facts. The SQL filter below encodes the same rules. */
export const decide = (facts: AccessFacts, relation: SpaceRelation = "viewer"): Decision => {
  if (!facts.userActive) return { allowed: false, reasonCode: "USER_INACTIVE", branch: "USER", kind: "INACTIVE", detail: "The user is deactivated" }
  if (!facts.spaceActive) return { allowed: false, reasonCode: "SPACE_INACTIVE", branch: "SPACE", kind: "INACTIVE", detail: "The knowledge space is inactive" }
  const sufficient = facts.grants
    .filter((g) => relationRank[g.relation] >= relationRank[relation])
    .sort((a, b) => relationRank[b.relation] - relationRank[a.relation])
  if (sufficient.length === 0) {
    return { allowed: false, reasonCode: "NO_GRANT", branch: "GRANT", kind: "MISSING_RELATION", detail: `No grant gives the user ${relation} on the knowledge space` }
  }
  if (facts.classification !== null && classificationRank[facts.classification] > classificationRank[facts.clearanceCeiling]) {
    return {
      allowed: false,
      reasonCode: "CLEARANCE_TOO_LOW",
      branch: "CLASSIFICATION",
      kind: "CLEARANCE",
      detail: `The item is ${facts.classification}; the user's clearance reaches ${facts.clearanceCeiling}`
    }
  }
  if (facts.sourceAcl !== null && !facts.sourceAcl.allowed) {
    const reasonCode = facts.sourceAcl.reasonCode ?? "SOURCE_ACL_DENIED"
    return { allowed: false, reasonCode, branch: "SOURCE_ACL", kind: reasonCode === "SOURCE_ACL_UNRESOLVED" ? "UNRESOLVED" : "NOT_MAPPED", detail: facts.sourceAcl.reason }
  }
  return { allowed: true, reasonCode: "GRANTED", grant: sufficient[0]! }
}

/** What the evaluator needs of a resource to decide on it (a resolved `GovernedResource` has it). */
export interface ResourceFacts {
  readonly knowledgeSpaceId: string
  readonly classification: Classification | null
  readonly aclKeys: ReadonlyArray<string> | null
  /** Key sets every one of which the caller must also satisfy (an intersection); null or absent when none. */
  readonly aclAll?: ReadonlyArray<string> | null | undefined
}

/** The user whose access is decided: the caller, or the subject of an explanation. */
export type Subject = Pick<Principal, "userId" | "departmentId" | "role" | "platformRoles" | "clearance"> & { readonly active: boolean }

/** Which clearances read a classification, in words: "CONFIDENTIAL needs clearance CONFIDENTIAL or RESTRICTED". */
export const clearanceNeeded = (classification: Classification) => {
  const reading = (Object.keys(clearanceCeiling) as Array<Clearance>)
    .filter((clearance) => classificationRank[clearanceCeiling[clearance]] >= classificationRank[classification])
  return reading.length === Object.keys(clearanceCeiling).length
    ? `${classification} is readable at every clearance`
    : `${classification} needs clearance ${reading.join(" or ").replace(/ or (?=.* or )/g, ", ")}`
}

/** The one access evaluator: every read path asks it, as a check (facts + decide) or as SQL filtering (scope). */
export class AccessEvaluator extends Effect.Service<AccessEvaluator>()("lore/AccessEvaluator", {
  effect: Effect.gen(function* () {
    const repo = yield* AccessRepo

    const keysFor = (principal: Pick<Principal, "userId" | "departmentId" | "role" | "platformRoles">) =>
      Effect.map(repo.memberships(principal.userId), (rows) =>
        accessKeys(
          principal,
          rows.filter((row) => row.kind === "DEPARTMENT_MANAGERS").map((row) => row.id),
          rows.filter((row) => row.kind === "GROUP").map((row) => row.id)
        ))

    /**
     * The source-ACL keys the user matches through connector mappings (TRUSTED connections whose permissions have not
     * expired, nested groups resolved), with the ids of the key sets they satisfy; `loreKeys` are their LORE_ keys.
     */
    const connectorKeys = (userId: string, loreKeys: ReadonlyArray<string> = []) =>
      Effect.map(repo.sourceKeys(userId, loreKeys), (rows) => rows.map((row) => row.key))

    /** Active spaces of the caller's organization on which they hold at least `relation`. */
    const spacesWith = (principal: Principal, relation: SpaceRelation) =>
      Effect.flatMap(keysFor(principal), (keys) => repo.spacesWith(principal.organizationId, keys, relationsAtLeast(relation)))

    /** The caller's read scope, for filtering inside SQL (computed once per `sharedReadScope` unit of work). */
    const readScope = (principal: Principal) =>
      Effect.flatMap(FiberRef.get(sharedReadScopes), (shared) => {
        if (Option.isNone(shared)) return computeReadScope(principal)
        return Effect.suspend(() => {
          const key = `${principal.userId}:${principal.clearance}`
          const known = shared.value.get(key)
          if (known) return Deferred.await(known)
          const resolved = Deferred.unsafeMake<ReadScope>(FiberId.none)
          shared.value.set(key, resolved)
          return Effect.onExit(computeReadScope(principal), (exit) => Deferred.done(resolved, exit))
        })
      })

    /** One statement (AccessRepo.readScope): the memberships, spaces and connector keys a search filters by. */
    const computeReadScope = (principal: Principal) =>
      Effect.map(repo.readScope(principal.userId, principal.organizationId, accessKeys(principal, []), relationsAtLeast("viewer")), (found) => ({
        userId: principal.userId,
        organizationId: principal.organizationId,
        spaceIds: found.spaceIds,
        graphRetrievalSpaceIds: found.graphRetrievalSpaceIds,
        maxClassificationRank: classificationRank[clearanceCeiling[principal.clearance]],
        // Satisfied key sets go apart: array overlap compares every pair, so the any-of list stays short.
        sourcePrincipalKeys: [...found.loreKeys, ...found.connectorKeys.filter((key) => !isSetKey(key))],
        sourceSetKeys: found.connectorKeys.filter(isSetKey)
      }) satisfies ReadScope)

    /** The facts of the access model for one subject and one resolved resource, branch by branch. */
    const factsFor = (subject: Subject, resource: ResourceFacts) =>
      Effect.gen(function* () {
        const keys = yield* keysFor(subject)
        const [grants, space] = yield* Effect.all([repo.matchingGrants(resource.knowledgeSpaceId, keys), repo.spaceState(resource.knowledgeSpaceId)])
        const loreKeys = sourcePrincipalKeys(subject.userId, keys)
        const principalKeys = [...loreKeys, ...(yield* connectorKeys(subject.userId, loreKeys))]
        return {
          userActive: subject.active,
          spaceActive: space?.active ?? false,
          grants,
          classification: resource.classification,
          clearanceCeiling: clearanceCeiling[subject.clearance],
          sourceAcl: sourceAclFacts(resource.aclKeys, resource.aclAll ?? null, principalKeys)
        } satisfies AccessFacts
      })

    /**
     * Who may read an item of `classification` in a space, counted by the same decision function: its members
     * (active users with at least viewer on it) and, of those, the ones whose clearance reaches the item.
     */
    const audience = (organizationId: string, space: { readonly id: string; readonly key: string }, classification: Classification) =>
      Effect.gen(function* () {
        const subjects = yield* repo.audienceSubjects(organizationId)
        const keysOf = subjects.map((s) => accessKeys({ userId: s.id, departmentId: s.departmentId, role: s.role, platformRoles: s.platformRoles }, s.managedDepartments, s.groups))
        const grants = yield* repo.matchingGrants(space.id, [...new Set(keysOf.flat())])
        let spaceMembers = 0
        let readers = 0
        subjects.forEach((subject, i) => {
          const keys = new Set(keysOf[i])
          const facts: AccessFacts = {
            userActive: subject.active,
            spaceActive: true,
            grants: grants.filter((grant) => keys.has(grant.subjectKey)),
            classification,
            clearanceCeiling: clearanceCeiling[subject.clearance],
            sourceAcl: null
          }
          if (decide({ ...facts, classification: null }).allowed) spaceMembers++
          if (decide(facts).allowed) readers++
        })
        return { readers, spaceMembers, summary: `readable by ${readers} of ${spaceMembers} members of space ${space.key}: ${clearanceNeeded(classification)}` }
      })

    return {
      keysFor,
      connectorKeys,
      spacesWith,
      readScope,
      factsFor,
      /** How a user reaches an item's source ACL through connector mappings and groups (empty when they do not). */
      sourcePath: repo.sourcePath,
      admits,
      /** The SQL predicate of the access model for rows with knowledge_space_id, classification_rank and acl_keys under `alias`. */
      visibleTo: repo.visibleTo,
      /**
       * The grant and classification branches alone, for rows that carry no ACL column (search postings);
       * such a query must still apply `visibleTo` to the chunks it returns.
       */
      grantAndClearance: repo.grantAndClearance,
      audience
    }
  }),
  dependencies: [AccessRepo.Default]
}) {}

/**
 * Whether a resolved resource passes a caller's read scope: the same rules as `visibleTo`, for a resource
 * already in hand (its label, say) instead of rows in a query. The scope holds only active spaces with a
 * viewer grant, so this is `decide(...).allowed` for an active caller at relation viewer.
 */
export const admits = (scope: Pick<ReadScope, "spaceIds" | "maxClassificationRank" | "sourcePrincipalKeys" | "sourceSetKeys">, resource: ResourceFacts) =>
  scope.spaceIds.includes(resource.knowledgeSpaceId)
  && (resource.classification === null || classificationRank[resource.classification] <= scope.maxClassificationRank)
  && (resource.aclKeys === null || resource.aclKeys.some((key) => scope.sourcePrincipalKeys.includes(key)))
  && (resource.aclAll === undefined || resource.aclAll === null || resource.aclAll.every((key) => (scope.sourceSetKeys ?? []).includes(key)))

/**
 * The SOURCE_ACL branch: which allowed principals the user reaches (keys name the connection, U or G, and the
 * native id; a G key reached means through that source group, nested groups resolved), or why not.
 */
const sourceAclFacts = (aclKeys: ReadonlyArray<string> | null, aclAll: ReadonlyArray<string> | null, principalKeys: ReadonlyArray<string>) => {
  if (aclKeys === null) return null
  const matched = aclKeys.filter((key) => principalKeys.includes(key))
  const unmet = (aclAll ?? []).filter((key) => !principalKeys.includes(key))
  if (matched.length > 0 && unmet.length > 0) {
    return { allowed: false, reason: `The user maps to ${matched.slice(0, 5).join(", ")} in the source ACL, but not into every restriction it also requires: ${unmet.slice(0, 5).join(", ")}` }
  }
  if (matched.length > 0) return { allowed: true, reason: `The user maps to ${matched.slice(0, 5).join(", ")} in the source ACL` }
  return {
    allowed: false,
    reason: aclKeys.length === 0
      ? "The item's source ACL admits nobody"
      : "The user has no ACTIVE mapping on a TRUSTED connection to a principal (or a member of a group) the item's source ACL allows"
  }
}

/** The key a connector's ACL entry puts on chunks: the evaluator's sourceKeys query yields the same for mapped users. */
export const sourceAclKey = (connectionId: string, kind: "SOURCE_USER" | "SOURCE_GROUP" | "SOURCE_ORGANIZATION", nativePrincipalId: string) =>
  `SRC:${connectionId}:${kind === "SOURCE_GROUP" ? "G" : kind === "SOURCE_ORGANIZATION" ? "O" : "U"}:${nativePrincipalId}`

/** The key of a set of source-ACL keys (an acl_all entry): content-addressed, so equal sets share one key. */
export const sourceAclSetKey = (connectionId: string, digest: string) => `SRC:${connectionId}:S:${digest}`
const isSetKey = (key: string) => /^SRC:[^:]+:S:/.test(key)

/**
 * The source-principal keys a Lore user matches in a source ACL (connector mappings add theirs: connectorKeys): the user,
 * and the provisioned groups they belong to (a connector may name a SCIM group as an allowed principal). AccessRepo.readScope
 * makes the same keys in SQL (lore_keys).
 */
const sourcePrincipalKeys = (userId: string, accessKeys: ReadonlyArray<string>) => [
  `LORE_USER:${userId}`,
  ...accessKeys.filter((key) => key.startsWith("GROUP:")).map((key) => `LORE_${key}`)
]
