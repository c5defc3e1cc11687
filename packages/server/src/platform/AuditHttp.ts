import { HttpApiBuilder } from "@effect/platform"
import { Effect } from "effect"
import { LoreApi } from "../http/Api"
import { CurrentUser } from "../identity/CurrentUser"
import { Audit } from "./Audit"

export const AuditHttp = HttpApiBuilder.group(LoreApi, "adminAudit", (handlers) =>
  Effect.map(Audit, (audit) =>
    handlers.handle("listAuditEvents", ({ urlParams }) => Effect.flatMap(CurrentUser, (me) => audit.list(me.organizationId, urlParams)))
  )
)
