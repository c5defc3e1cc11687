/**
 * CONFLUENCE: seconds from a permission change at the source to its enforcement in search (issue 30, point 12), at
 * 1,000 and 10,000 pages (PERM_BENCH_SIZES), through bench/lib/permission-latency.ts (read its header for what is
 * timed and how p50/p95 are composed at the default 300 s schedule). The loopback site is the tests' own
 * (packages/test-support/confluence-site.ts, pages of 25 and groups of 200): one space readable by a group holding
 * both users; each target page restricted to a group of its own holding the affected user; a sample removes the
 * affected user from one target's group. Confluence's sync reads the groups first (then every page's restrictions),
 * so a membership change is enforced within a second of the sync's start while the whole sync takes longer: both are
 * printed, and the composition uses the time to enforcement. Asserts nothing.
 */
import { type SiteModel, startConfluenceSite } from "../packages/test-support/confluence-site"
import { type PermissionLatencyDriver, runPermissionLatency } from "./lib/permission-latency"

export const description = "Confluence: permission change → enforcement in search, measured sync time and p50/p95 composed at the 300 s schedule"

const AUTH = { email: "bot@example.com", apiToken: "bench-api-token" }
const letters = (i: number) => [...String(i)].map((digit) => "abcdefghij"[Number(digit)]).join("")

export const confluenceDriver: PermissionLatencyDriver = {
  label: "CONFLUENCE",
  sourceSystem: "CONFLUENCE",
  affectedEmail: "ben@example.com",
  start: async ({ documents, samples }) => {
    const model: SiteModel = {
      users: new Map([
        ["acc-ann", { accountId: "acc-ann", email: "ann@example.com", displayName: "Ann" }],
        ["acc-ben", { accountId: "acc-ben", email: "ben@example.com", displayName: "Ben" }]
      ]),
      groups: new Map([["engineering", new Set(["acc-ann", "acc-ben"])], ...Array.from({ length: samples }, (_, i) => [`team-${i}`, new Set(["acc-ben"])] as const)]),
      spaces: new Map([["ENG", { key: "ENG", name: "Engineering", readers: { users: [], groups: ["engineering"] }, permissionsReadable: true }]]),
      contents: new Map()
    }
    const modified = new Date(Date.now() - 3600_000)
    for (let n = 0; n < documents; n++) {
      const target = n < samples
      const id = String(10_000 + n)
      model.contents.set(id, {
        id,
        type: "page",
        title: `Note ${n}`,
        spaceKey: "ENG",
        ancestors: [],
        body: `<p>${target ? `The zqt${letters(n)} target. ` : ""}Planning notes number ${n} for the engineering team.</p>`,
        lastModified: modified,
        restriction: target ? { users: [], groups: [`team-${n}`] } : null,
        attachments: []
      })
    }
    const site = await startConfluenceSite(model, AUTH, { pageLimit: 200 })
    const served = () => Object.values(site.state.served).reduce((a, b) => a + b, 0)
    return {
      allowedPrivateHosts: [site.host],
      sourceConfig: { deployment: "CLOUD", baseUrl: site.baseUrl, spaces: ["ENG"] },
      credential: AUTH,
      targetWord: (i) => `zqt${letters(i)}`,
      revoke: (i) => {
        model.groups.get(`team-${i}`)!.delete("acc-ben")
      },
      requestsServed: served,
      contentServed: () => site.state.served.content + site.state.served.downloads,
      close: site.close
    }
  }
}

export default () => runPermissionLatency(confluenceDriver)
