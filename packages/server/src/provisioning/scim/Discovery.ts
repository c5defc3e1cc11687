import { CORE_GROUP, CORE_USER, ENTERPRISE_USER } from "./Filter"

/** The discovery documents of /scim/v2 (RFC 7643 §5-7). */

export const serviceProviderConfig = (base: string) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
  documentationUri: "https://lore.dev/docs/provisioning",
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 200 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{
    type: "oauthbearertoken",
    name: "Provisioning token",
    description: "A token issued for this connection under /api/admin/provisioning, sent as Authorization: Bearer",
    primary: true
  }],
  meta: { resourceType: "ServiceProviderConfig", location: `${base}/ServiceProviderConfig` }
})

export const resourceTypes = (base: string) => [
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "User", name: "User", endpoint: "/Users", description: "A person, who becomes a Lore user",
    schema: CORE_USER, schemaExtensions: [{ schema: ENTERPRISE_USER, required: false }],
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/User` }
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
    id: "Group", name: "Group", endpoint: "/Groups", description: "A group, which knowledge space grants can name",
    schema: CORE_GROUP,
    meta: { resourceType: "ResourceType", location: `${base}/ResourceTypes/Group` }
  }
]

const attribute = (name: string, type = "string", extra: Record<string, unknown> = {}) => ({
  name, type, multiValued: false, required: false, caseExact: false, mutability: "readWrite", returned: "default", uniqueness: "none", ...extra
})
const complex = (name: string, subAttributes: Array<ReturnType<typeof attribute>>, multiValued = false) =>
  ({ ...attribute(name, "complex"), multiValued, subAttributes })
const multi = (name: string) =>
  complex(name, [attribute("value"), attribute("display"), attribute("type"), attribute("primary", "boolean")], true)

export const schemaDocuments = (base: string) => [
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: CORE_USER, name: "User", description: "User Account",
    attributes: [
      attribute("userName", "string", { required: true, uniqueness: "server" }),
      complex("name", ["formatted", "familyName", "givenName", "middleName", "honorificPrefix", "honorificSuffix"].map((n) => attribute(n))),
      ...["displayName", "nickName", "profileUrl", "title", "userType", "preferredLanguage", "locale", "timezone"].map((n) => attribute(n)),
      attribute("active", "boolean"),
      multi("emails"), multi("phoneNumbers"), multi("ims"), multi("photos"), multi("entitlements"), multi("roles"),
      complex("addresses", ["formatted", "streetAddress", "locality", "region", "postalCode", "country", "type"].map((n) => attribute(n)), true),
      { ...multi("groups"), mutability: "readOnly" }
    ],
    meta: { resourceType: "Schema", location: `${base}/Schemas/${CORE_USER}` }
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: ENTERPRISE_USER, name: "EnterpriseUser", description: "Enterprise User (department becomes the Lore department)",
    attributes: [
      ...["employeeNumber", "costCenter", "organization", "division", "department"].map((n) => attribute(n)),
      complex("manager", [attribute("value"), attribute("$ref", "reference"), attribute("displayName")])
    ],
    meta: { resourceType: "Schema", location: `${base}/Schemas/${ENTERPRISE_USER}` }
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: CORE_GROUP, name: "Group", description: "Group",
    attributes: [
      attribute("displayName", "string", { required: true }),
      complex("members", [attribute("value"), attribute("display"), attribute("$ref", "reference"), attribute("type")], true)
    ],
    meta: { resourceType: "Schema", location: `${base}/Schemas/${CORE_GROUP}` }
  }
]
