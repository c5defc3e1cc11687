import { SqlClient } from "@effect/sql"
import { transactional } from "../db/Sql"
import { Effect } from "effect"
import { DepartmentNotFound, UserNotFound } from "../domain/Errors"
import { grantRemoval } from "./Policy"
import { GrantNotFound, InvalidGrant, KnowledgeSpaceKeyTaken, KnowledgeSpaceNotFound } from "./Errors"
import { actingUserId, type Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { AuthorizationGeneration, policyVersion } from "./Generation"
import { GrantKind, PlatformRole, SpaceRelation, UserRole } from "../domain/Model"
import { type GrantRow, SpacesRepo } from "./SpacesRepo"
import { quoteInput } from "../domain/Echo"

export interface GrantInput {
  readonly relation: typeof SpaceRelation.Type
  readonly kind: typeof GrantKind.Type
  readonly subjectId?: string | undefined
  readonly role?: string | undefined
}

const spaceNotFound = new KnowledgeSpaceNotFound({ detail: "No knowledge space with this id in your organization" })
const grantableRoles: ReadonlyArray<string> = [...UserRole.literals, ...PlatformRole.literals]

const audienceMode = (grants: ReadonlyArray<GrantRow>) =>
  grants.length === 0 ? "NONE" as const
    : grants.some((g) => g.kind === "ORGANIZATION") ? "ORGANIZATION" as const
    : grants.every((g) => g.kind === "DEPARTMENT" || g.kind === "DEPARTMENT_MANAGERS") ? "DEPARTMENT" as const
    : "RESTRICTED" as const

/** Administering knowledge spaces and their grants. Grant changes raise the authorization generation. */
export class Spaces extends Effect.Service<Spaces>()("lore/Spaces", {
  effect: Effect.gen(function* () {
    const transaction = transactional(yield* SqlClient.SqlClient)
    const repo = yield* SpacesRepo
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration

    const describeAll = (actor: Principal) =>
      Effect.gen(function* () {
        const [spaces, grants, current] = yield* Effect.all([
          repo.spaces(actor.organizationId),
          repo.grants(actor.organizationId),
          generation.current(actor.organizationId)
        ])
        return spaces.map((space) => {
          const own = grants.filter((g) => g.knowledgeSpaceId === space.id)
          return {
            id: space.id,
            key: space.key,
            name: space.name,
            audienceMode: audienceMode(own),
            audienceVersion: space.audienceVersion,
            departmentId: space.departmentId,
            active: space.active,
            grants: own.map((g) => ({
              relation: g.relation,
              subject: g.subjectKey,
              kind: g.kind,
              subjectId: g.subjectId,
              role: g.role,
              subjectLabel: g.subjectLabel ?? "(removed)",
              effective: g.effective
            })),
            grantsComplete: true,
            policyVersion: policyVersion(current)
          }
        })
      })

    const requireSpace = (actor: Principal, spaceId: string) =>
      Effect.flatMap(repo.space(actor.organizationId, spaceId), (space) => (space ? Effect.succeed(space) : Effect.fail(spaceNotFound)))

    /** The grant's subject, checked: the right fields for its kind, and a subject that exists. */
    const normalize = (actor: Principal, grant: GrantInput) =>
      Effect.gen(function* () {
        const invalid = (detail: string) => new InvalidGrant({ detail })
        switch (grant.kind) {
          case "ORGANIZATION":
            if (grant.subjectId || grant.role) return yield* invalid("An ORGANIZATION grant takes neither subjectId nor role")
            return { relation: grant.relation, kind: grant.kind, subjectId: null, role: null }
          case "DEPARTMENT":
          case "DEPARTMENT_MANAGERS":
            if (!grant.subjectId || grant.role) return yield* invalid(`A ${grant.kind} grant takes the department's id as subjectId`)
            if (!(yield* repo.departmentExists(actor.organizationId, grant.subjectId))) {
              return yield* new DepartmentNotFound({ detail: "No department with this id in your organization" })
            }
            return { relation: grant.relation, kind: grant.kind, subjectId: grant.subjectId, role: null }
          case "USER":
            if (!grant.subjectId || grant.role) return yield* invalid("A USER grant takes the user's id as subjectId")
            if (!(yield* repo.userExists(actor.organizationId, grant.subjectId))) {
              return yield* new UserNotFound({ detail: "No user with this id in your organization" })
            }
            return { relation: grant.relation, kind: grant.kind, subjectId: grant.subjectId, role: null }
          case "GROUP":
            if (!grant.subjectId || grant.role) return yield* invalid("A GROUP grant takes the provisioned group's id as subjectId")
            if (!(yield* repo.groupExists(actor.organizationId, grant.subjectId))) {
              return yield* invalid("No provisioned group with this id in your organization")
            }
            return { relation: grant.relation, kind: grant.kind, subjectId: grant.subjectId, role: null }
          case "ROLE":
            if (!grant.role || grant.subjectId || !grantableRoles.includes(grant.role)) {
              return yield* invalid(`A ROLE grant takes one of ${grantableRoles.join(", ")} as role`)
            }
            return { relation: grant.relation, kind: grant.kind, subjectId: null, role: grant.role }
        }
      })

    const changeAccess = (actor: Principal, spaceId: string, action: string, details: Record<string, unknown>) =>
      Effect.all([
        repo.bumpAudience(spaceId),
        generation.bump(actor.organizationId),
        audit.record(actor, { action, resourceType: "knowledge_space", resourceId: spaceId, details })
      ])

    return {
      list: describeAll,

      /**
       * The creator manages what they create; everyone else needs a grant. `manager` names someone else as its
       * first manager (Lore itself creating a space at first start names the administrator).
       */
      create: (actor: Principal, input: { key: string; name: string; departmentId?: string | null | undefined }, manager: string = actor.userId) =>
        transaction(
          Effect.gen(function* () {
            const departmentId = input.departmentId ?? null
            if (departmentId && !(yield* repo.departmentExists(actor.organizationId, departmentId))) {
              return yield* new DepartmentNotFound({ detail: "No department with this id in your organization" })
            }
            const inserted = yield* repo.insertSpace(actor.organizationId, input.key, input.name, departmentId)
            if (!inserted) return yield* new KnowledgeSpaceKeyTaken({ detail: `A knowledge space with key ${quoteInput(input.key, 100)} exists already` })
            const id = inserted.id
            yield* repo.insertGrant(id, { relation: "manager", kind: "USER", subjectId: manager, role: null }, actingUserId(actor))
            yield* changeAccess(actor, id, "knowledge_space.create", { key: input.key, name: input.name })
            const all = yield* describeAll(actor)
            return all.find((space) => space.id === id)!
          })
        ),

      remove: (actor: Principal, spaceId: string) =>
        transaction(
          Effect.gen(function* () {
            const space = yield* requireSpace(actor, spaceId)
            yield* repo.deleteSpace(spaceId)
            yield* generation.bump(actor.organizationId)
            yield* audit.record(actor, { action: "knowledge_space.delete", resourceType: "knowledge_space", resourceId: spaceId, details: { key: space.key } })
          })
        ),

      grantOptions: () =>
        SpaceRelation.literals.map((relation) => ({ relation, kinds: [...GrantKind.literals], roles: [...grantableRoles] })),

      addGrant: (actor: Principal, spaceId: string, input: GrantInput) =>
        transaction(
          Effect.gen(function* () {
            yield* requireSpace(actor, spaceId)
            const grant = yield* normalize(actor, input)
            if (yield* repo.insertGrant(spaceId, grant, actingUserId(actor))) {
              yield* changeAccess(actor, spaceId, "grant.add", grant)
            }
          })
        ),

      removeGrant: (actor: Principal, spaceId: string, input: GrantInput) =>
        transaction(
          Effect.gen(function* () {
            yield* requireSpace(actor, spaceId)
            const grant = { relation: input.relation, kind: input.kind, subjectId: input.subjectId ?? null, role: input.role ?? null }
            if (!(yield* repo.deleteGrant(spaceId, grant))) {
              return yield* new GrantNotFound({ detail: "The knowledge space has no such grant" })
            }
            const remaining = (yield* repo.grants(actor.organizationId)).filter((g) => g.knowledgeSpaceId === spaceId)
            yield* grantRemoval(grant, remaining)
            yield* changeAccess(actor, spaceId, "grant.remove", grant)
          })
        ),

      /** The resolver the explanation uses for KNOWLEDGE_SPACE resources. */
      resolveSpace: (organizationId: string, id: string) =>
        Effect.map(repo.space(organizationId, id), (space) =>
          space && {
            id: space.id,
            type: "KNOWLEDGE_SPACE" as const,
            label: space.name,
            contextLabel: space.key,
            knowledgeSpaceId: space.id,
            classification: null,
            aclKeys: null
          }
        )
    }
  }),
  dependencies: [SpacesRepo.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
