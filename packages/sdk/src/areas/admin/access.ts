import type { LoreFetchClient } from "../../fetchClient"
import { paginate } from "../../paginate"
import { toQuery } from "../../query"
import { unwrap, unwrapEmpty } from "../../response"
import type {
  AccessExplanation,
  AddGrant,
  AdminKnowledgeSpace,
  AuditEvent,
  AuditPage,
  CreateKnowledgeSpace,
  ExplainRequest,
  GrantOption
} from "../../generated/openapi"
import type { QueryOf } from "../../operations"
import type { WithDates } from "../../query"

/** Filters of the audit log; `since`/`until` are ISO 8601 strings or Dates (an invalid Date is INVALID_ARGUMENT). */
export type AuditQuery = WithDates<QueryOf<"listAuditEvents">, "since" | "until">

/** Knowledge spaces with their grants; every change bumps the organization's authorizationGeneration. */
export class AdminSpacesArea {
  constructor(private readonly client: LoreFetchClient) {}

  list(): Promise<Array<AdminKnowledgeSpace>> {
    return unwrap(this.client.GET("/api/admin/knowledge-spaces"))
  }

  /** `key`: lowercase letters, digits and dashes, unique in the organization. */
  create(input: CreateKnowledgeSpace): Promise<AdminKnowledgeSpace> {
    return unwrap(this.client.POST("/api/admin/knowledge-spaces", { body: input }))
  }

  remove(knowledgeSpaceId: string): Promise<void> {
    return unwrapEmpty(this.client.DELETE("/api/admin/knowledge-spaces/{knowledgeSpaceId}", { params: { path: { knowledgeSpaceId } } }))
  }

  /** Which subject kinds (and roles) each relation can be granted to. */
  grantOptions(): Promise<Array<GrantOption>> {
    return unwrap(this.client.GET("/api/admin/knowledge-spaces/grant-options"))
  }

  /** `subjectId` for DEPARTMENT, DEPARTMENT_MANAGERS and USER; `role` for ROLE; neither for ORGANIZATION. */
  addGrant(knowledgeSpaceId: string, grant: AddGrant): Promise<void> {
    return unwrapEmpty(this.client.POST("/api/admin/knowledge-spaces/{knowledgeSpaceId}/grants", { params: { path: { knowledgeSpaceId } }, body: grant }))
  }

  removeGrant(knowledgeSpaceId: string, grant: AddGrant): Promise<void> {
    const query = { ...grant }
    return unwrapEmpty(this.client.DELETE("/api/admin/knowledge-spaces/{knowledgeSpaceId}/grants", { params: { path: { knowledgeSpaceId }, query } }))
  }
}

/** Why a user may or may not reach a resource, branch by branch, as the evaluator decides it. */
export class AdminAccessArea {
  constructor(private readonly client: LoreFetchClient) {}

  explain(request: ExplainRequest): Promise<AccessExplanation> {
    return unwrap(this.client.POST("/api/admin/access/explain", { body: request }))
  }
}

/** The audit log: who did what, when, to which resource, with the request id; newest first. */
export class AdminAuditArea {
  constructor(private readonly client: LoreFetchClient) {}

  /** One page; pass the previous page's `nextCursor` as `cursor` for the next. */
  async list(query: AuditQuery = {}): Promise<AuditPage> {
    return unwrap(this.client.GET("/api/admin/audit", { params: { query: toQuery(query) } }))
  }

  /** Every matching event, fetching pages lazily: `for await (const event of lore.admin.audit.all({ ... }))`. */
  all(query: Omit<AuditQuery, "cursor"> = {}): AsyncGenerator<AuditEvent, void, undefined> {
    return paginate((cursor) => this.list({ ...query, cursor }))
  }
}
