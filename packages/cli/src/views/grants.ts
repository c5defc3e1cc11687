import type { AddGrant, AdminKnowledgeSpace, SpaceGrant } from "@lore/sdk"
import type { GrantSpec } from "../arguments"
import { type Cell, styled, type View } from "../output/view"
import { idCell } from "./users"

/** The grants on one knowledge space, as `admin grants list|add|rm` show them. */
export interface SpaceGrants {
  readonly space: { readonly id: string; readonly key: string; readonly name: string }
  readonly grants: ReadonlyArray<SpaceGrant>
  readonly grantsComplete: boolean
  readonly policyVersion: string
}

export const grantsOf = (space: AdminKnowledgeSpace): SpaceGrants => ({
  space: { id: space.id, key: space.key, name: space.name },
  grants: space.grants,
  grantsComplete: space.grantsComplete,
  policyVersion: space.policyVersion
})

/** Who a grant is for, as the command line named them: `the whole organization`, `role MANAGER`, `USER ada@example.com`. */
export const grantee = (grant: AddGrant, spec: GrantSpec) =>
  grant.kind === "ORGANIZATION" ? "the whole organization" : grant.kind === "ROLE" ? `role ${grant.role}` : `${grant.kind} ${spec.subject}`

const subjectCell = (grant: SpaceGrant): Cell => (grant.effective ? grant.subjectLabel : styled(`${grant.subjectLabel} (not effective)`, "warning"))

export const grantsView = (result: SpaceGrants): View => [
  { kind: "heading", text: `Grants on ${result.space.name} (${result.space.key})` },
  {
    kind: "table",
    columns: [{ header: "relation" }, { header: "kind" }, { header: "subject", fit: "text" }, { header: "subject id" }],
    rows: result.grants.map((grant) => [grant.relation, grant.kind, subjectCell(grant), idCell(grant.subjectId ?? grant.role ?? "-")]),
    empty: "No grants."
  },
  ...(result.grantsComplete ? [] : [{ kind: "message" as const, tone: "warning" as const, text: "Some grants could not be listed (grantsComplete: false)." }])
]
