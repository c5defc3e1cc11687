/**
 * SHAREPOINT: seconds from a permission change at the source to its enforcement in search (issue 30, point 12), at
 * 1,000 and 10,000 documents (PERM_BENCH_SIZES), through bench/lib/permission-latency.ts (read its header for what
 * is timed and how p50/p95 are composed at the default 300 s schedule). The loopback tenant is the tests' own
 * (packages/test-support/sharepoint-site.ts, Graph pages of 200): one library; every document readable by an Entra
 * group holding both users, each target by a group of its own holding the affected user; a sample removes the
 * affected user from one target's group (read in the sync's GROUPS phase, after every document's permissions, so the
 * figure is the whole sync's cost). Prints the measured sync times and the composed figures; asserts nothing.
 */
import { makeCertificate, startTenant, type TenantModel } from "../packages/test-support/sharepoint-site"
import { type PermissionLatencyDriver, runPermissionLatency } from "./lib/permission-latency"

export const description = "SharePoint: permission change → enforcement in search, measured sync time and p50/p95 composed at the 300 s schedule"

const TENANT = "0b1c2d3e-0000-4000-8000-00000000aaaa"
const CLIENT = "c11e0000-0000-4000-8000-00000000cccc"
const SITE = "127.0.0.1,11111111-1111-4111-8111-111111111111,22222222-2222-4222-8222-222222222222"
const EVERYONE = "aaaaaaaa-0000-4000-8000-ffffffffffff"
const groupOf = (i: number) => `aaaaaaaa-0000-4000-8000-${String(i).padStart(12, "0")}`
/** Letters only, so each target's word is one search token. */
const letters = (i: number) => [...String(i)].map((digit) => "abcdefghij"[Number(digit)]).join("")

export const sharePointDriver: PermissionLatencyDriver = {
  label: "SHAREPOINT",
  sourceSystem: "SHAREPOINT",
  affectedEmail: "ben@example.com",
  start: async ({ documents, samples }) => {
    const credential = makeCertificate()
    const model: TenantModel = {
      tenantId: TENANT,
      clientId: CLIENT,
      users: new Map([
        ["u-ann", { id: "u-ann", mail: "ann@example.com", displayName: "Ann", userType: "Member" }],
        ["u-ben", { id: "u-ben", mail: "ben@example.com", displayName: "Ben", userType: "Member" }]
      ]),
      groups: new Map([[EVERYONE, new Set(["u-ann", "u-ben"])], ...Array.from({ length: samples }, (_, i) => [groupOf(i), new Set(["u-ben"])] as const)]),
      sites: new Map([[SITE, { id: SITE, name: "Engineering", path: "/sites/eng", drives: ["b!bench"], siteGroups: new Map() }]]),
      drives: new Map([["b!bench", { id: "b!bench", name: "Documents", siteId: SITE, ownerEmail: null, permissionsReadable: true }]]),
      items: new Map(),
      seq: 0
    }
    for (let n = 0; n < documents; n++) {
      const target = n < samples
      const id = `item${String(n).padStart(6, "0")}`
      model.items.set(id, {
        id,
        driveId: "b!bench",
        name: `Note ${n}.txt`,
        content: `${target ? `The zqt${letters(n)} target. ` : ""}Planning notes number ${n} for the engineering team.`,
        changed: ++model.seq,
        deleted: false,
        permissions: [target ? { id: `p-${n}`, kind: "group", groupId: groupOf(n) } : { id: `p-${n}`, kind: "group", groupId: EVERYONE }]
      })
    }
    const tenant = await startTenant(model, credential.certificatePem, { pageSize: 200 })
    const served = () => Object.values(tenant.state.served).reduce((a, b) => a + b, 0)
    return {
      allowedPrivateHosts: [tenant.host],
      connectorBaseUrls: { graph: tenant.baseUrl, login: tenant.baseUrl },
      sourceConfig: { tenantId: TENANT, clientId: CLIENT, sharepointHost: tenant.baseUrl, sites: [SITE] },
      credential,
      targetWord: (i) => `zqt${letters(i)}`,
      revoke: (i) => {
        model.groups.get(groupOf(i))!.delete("u-ben")
      },
      requestsServed: served,
      contentServed: () => tenant.state.served.content,
      close: tenant.close
    }
  }
}

export default () => runPermissionLatency(sharePointDriver)
