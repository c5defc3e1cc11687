import type { SqlClient } from "@effect/sql"
import { nullPrototypeObject, withNullPrototypes } from "../../domain/SafeKeys"
import { CORE_GROUP, CORE_USER, ENTERPRISE_USER, type FilterTarget, type Operand } from "./Filter"
import type { GroupRow, ScimUserRow } from "./Repo"

/** SCIM resource shapes (RFC 7643): attribute names, the representation served, projections. */

const canonicalNames = [
  "schemas", "id", "externalId", "meta", "userName", "name", "formatted", "familyName", "givenName", "middleName", "honorificPrefix",
  "honorificSuffix", "displayName", "nickName", "profileUrl", "title", "userType", "preferredLanguage", "locale", "timezone", "active",
  "password", "emails", "phoneNumbers", "ims", "photos", "addresses", "groups", "entitlements", "roles", "x509Certificates", "value",
  "display", "type", "primary", "streetAddress", "locality", "region", "postalCode", "country", "employeeNumber", "costCenter",
  "organization", "division", "department", "manager", "members", "$ref", ENTERPRISE_USER
]
const canonical = new Map(canonicalNames.map((name) => [name.toLowerCase(), name]))
export const canonicalName = (name: string) => canonical.get(name.toLowerCase()) ?? name

export const multiValuedUserAttributes = new Set(["emails", "phoneNumbers", "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates"])

/** A document with SCIM's case-insensitive attribute names spelled one way, so SQL paths find them. */
export const canonicalize = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonicalize)
  if (value === null || typeof value !== "object" || value instanceof Date) return value
  return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([k, v]) => [canonicalName(k), canonicalize(v)]))
}

/** Entra ID sends booleans as "True"/"False". */
export const booleanOf = (value: unknown): boolean | undefined =>
  typeof value === "boolean" ? value : typeof value === "string" && /^(true|false)$/i.test(value) ? value.toLowerCase() === "true" : undefined

const meta = (resourceType: string, base: string, id: string, created: Date, lastModified: Date, version: number) => ({
  resourceType,
  created: created.toISOString(),
  lastModified: lastModified.toISOString(),
  location: `${base}/${resourceType === "User" ? "Users" : "Groups"}/${id}`,
  version: `W/"${version}"`
})

export const userResource = (row: ScimUserRow, base: string): Record<string, unknown> => {
  const { schemas: _schemas, id: _id, meta: _meta, active: _active, ...stored } = row.resource as Record<string, unknown>
  return {
    schemas: stored[ENTERPRISE_USER] ? [CORE_USER, ENTERPRISE_USER] : [CORE_USER],
    id: row.userId,
    ...(row.externalId ? { externalId: row.externalId } : {}),
    ...stored,
    userName: row.userName,
    active: row.active,
    meta: meta("User", base, row.userId, row.createdAt, row.updatedAt, row.version)
  }
}

export const groupResource = (row: GroupRow, members: ReadonlyArray<{ userId: string; display: string }>, base: string): Record<string, unknown> => ({
  schemas: [CORE_GROUP],
  id: row.id,
  ...(row.externalId ? { externalId: row.externalId } : {}),
  displayName: row.displayName,
  members: members.map((m) => ({ value: m.userId, display: m.display, $ref: `${base}/Users/${m.userId}` })),
  meta: meta("Group", base, row.id, row.createdAt, row.updatedAt, row.version)
})

const splitAttribute = (attribute: string): Array<string> => {
  const lower = attribute.toLowerCase()
  for (const urn of [CORE_USER, CORE_GROUP]) if (lower.startsWith(urn.toLowerCase() + ":")) return splitAttribute(attribute.slice(urn.length + 1))
  if (lower.startsWith(ENTERPRISE_USER.toLowerCase())) {
    const rest = attribute.slice(ENTERPRISE_USER.length + 1)
    return rest ? [ENTERPRISE_USER, ...rest.split(".").map(canonicalName)] : [ENTERPRISE_USER]
  }
  return attribute.split(".").map(canonicalName)
}

/**
 * Projection builds objects from attribute names the caller sent: HTTP checks them against SafeKeys first, and
 * here lookups are own-property only and every object built has a null prototype, so a name such as
 * `__proto__` can neither read nor write through to Object.prototype.
 */
const has = (source: object, key: string) => Object.hasOwn(source, key)

const pick = (source: Record<string, unknown>, path: ReadonlyArray<string>, target: Record<string, unknown>) => {
  const [head, ...rest] = path
  if (head === undefined || !has(source, head)) return
  if (rest.length === 0) {
    target[head] = source[head]
    return
  }
  const value = source[head]
  if (Array.isArray(value)) {
    target[head] = value.map((item) => {
      const out = nullPrototypeObject()
      if (item && typeof item === "object") pick(item as Record<string, unknown>, rest, out)
      return out
    })
  } else if (value && typeof value === "object") {
    const existing = has(target, head) ? target[head] as Record<string, unknown> : undefined
    const out = existing ?? nullPrototypeObject()
    pick(value as Record<string, unknown>, rest, out)
    target[head] = out
  }
}

const drop = (target: Record<string, unknown>, path: ReadonlyArray<string>) => {
  const [head, ...rest] = path
  if (head === undefined || !has(target, head)) return
  if (rest.length === 0) {
    delete target[head]
    return
  }
  const value = target[head]
  if (Array.isArray(value)) value.forEach((item) => item && typeof item === "object" && drop(item as Record<string, unknown>, rest))
  else if (value && typeof value === "object") drop(value as Record<string, unknown>, rest)
}

const alwaysReturned = ["schemas", "id", "meta"]

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5); id, schemas and meta are always returned. */
export const project = (resource: Record<string, unknown>, attributes: ReadonlyArray<string>, excluded: ReadonlyArray<string>) => {
  if (attributes.length > 0) {
    const out = nullPrototypeObject()
    for (const name of alwaysReturned) if (has(resource, name)) out[name] = resource[name]
    for (const attribute of attributes) pick(resource, splitAttribute(attribute), out)
    return out
  }
  if (excluded.length === 0) return resource
  const out = withNullPrototypes(resource) as Record<string, unknown>
  for (const attribute of excluded) {
    const path = splitAttribute(attribute)
    if (path.length === 1 && alwaysReturned.includes(path[0]!)) continue
    drop(out, path)
  }
  return out
}

const membership = (sql: SqlClient.SqlClient, join: "user" | "group"): Operand => ({
  kind: "membership",
  exists: (inner) => join === "group"
    ? sql`EXISTS (SELECT 1 FROM user_group_members m WHERE m.group_id = g.id AND ${inner(sql`m.user_id`)})`
    : sql`EXISTS (SELECT 1 FROM user_group_members m WHERE m.user_id = s.user_id AND ${inner(sql`m.group_id`)})`
})

/** How User filters map onto scim_users s JOIN users u. */
export const userFilterTarget = (sql: SqlClient.SqlClient): FilterTarget => ({
  resolve: (raw) => {
    const path = raw.map(canonicalName)
    const [head, sub] = path
    switch (head) {
      case "id": return { kind: "column", expr: sql`s.user_id::text`, type: "string", caseExact: true }
      case "externalId": return { kind: "column", expr: sql`s.external_id`, type: "string", caseExact: true }
      case "userName": return { kind: "column", expr: sql`s.user_name`, type: "string" }
      case "active": return { kind: "column", expr: sql`u.active`, type: "boolean" }
      case "meta":
        if (sub === "created") return { kind: "column", expr: sql`s.created_at`, type: "date" }
        if (sub === "lastModified") return { kind: "column", expr: sql`s.updated_at`, type: "date" }
        return { kind: "column", expr: sql`'User'`, type: "string" }
      case "groups": return membership(sql, "user")
    }
    if (head !== undefined && multiValuedUserAttributes.has(head)) {
      return { kind: "array", doc: sql`s.resource`, path: [head], sub: path.length > 1 ? path.slice(1) : ["value"] }
    }
    return { kind: "json", doc: sql`s.resource`, path }
  },
  elements: (raw) => {
    const head = canonicalName(raw[0] ?? "")
    return multiValuedUserAttributes.has(head) && raw.length === 1 ? sql`(s.resource #> ${[head]}::text[])` : undefined
  }
})

/** How Group filters map onto user_groups g. */
export const groupFilterTarget = (sql: SqlClient.SqlClient): FilterTarget => ({
  resolve: (raw) => {
    const [head, sub] = raw.map(canonicalName)
    switch (head) {
      case "id": return { kind: "column", expr: sql`g.id::text`, type: "string", caseExact: true }
      case "externalId": return { kind: "column", expr: sql`g.external_id`, type: "string", caseExact: true }
      case "displayName": return { kind: "column", expr: sql`g.display_name`, type: "string" }
      case "members": return membership(sql, "group")
      case "meta":
        if (sub === "created") return { kind: "column", expr: sql`g.created_at`, type: "date" }
        if (sub === "lastModified") return { kind: "column", expr: sql`g.updated_at`, type: "date" }
    }
    return { kind: "column", expr: sql`NULL::text`, type: "string" }
  },
  elements: () => undefined
})
