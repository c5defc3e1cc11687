import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Settings } from "../../src/Config"
import { nativeUserOf, organizationId, repositoryAcl, repositoryGroupId } from "../../src/connectors/github/Access"
import { githubClient } from "../../src/connectors/github/Client"
import { githubEndpoints, readGitHubConfig, readGitHubCredential } from "../../src/connectors/github/Config"
import { crawlGitHub } from "../../src/connectors/github/Crawl"
import { addToRanges, inRanges } from "../../src/connectors/github/Ranges"
import { GitHubKind } from "../../src/connectors/GitHub"
import { type GitHubModel, makeAppKey, startGitHub, tick } from "./github-site"

/** The GITHUB kind's parsers and mappings, each with its hostile input, and its client against the loopback GitHub (issue 31). */

const settings = Settings.make({ dataDir: "/tmp/unused" })
const errorPaths = (read: ReturnType<typeof readGitHubConfig>) => (read.ok ? [] : read.errors.map((e) => e.path))
const base = { owner: "acme", repositories: ["core"], include: ["ISSUES"] }
const repo = (visibility: "public" | "private" | "internal" | "secret", type = "Organization") =>
  ({ name: "core", visibility, private: visibility !== "public", owner: { login: "Acme", type } }) as never

describe("the GitHub sourceConfig and credential", () => {
  it("accepts names, includes and an Enterprise Server root, and places GraphQL beside it", () => {
    const read = readGitHubConfig({ ...base, repositories: ["core", "core", "docs.site"], baseUrl: "https://github.example.com/api/v3/" }, settings)
    expect(read).toMatchObject({ ok: true, config: { repositories: ["core", "docs.site"], baseUrl: "https://github.example.com/api/v3" } })
    if (read.ok) expect(githubEndpoints(read.config, settings)).toEqual({ rest: "https://github.example.com/api/v3", graphql: "https://github.example.com/api/graphql" })
    const cloud = readGitHubConfig(base, settings)
    if (cloud.ok) expect(githubEndpoints(cloud.config, settings)).toEqual({ rest: "https://api.github.com", graphql: "https://api.github.com/graphql" })
  })
  it("names each bad field: owner, repository with its owner, unknown include, private or credentialed base URL, unknown keys", () => {
    const read = readGitHubConfig({ owner: "a/b", repositories: ["acme/core", "..", 7], include: ["WIKI"], baseUrl: "http://10.0.0.5/api/v3", constructor: 1 } as never, settings)
    expect(errorPaths(read)).toEqual(expect.arrayContaining(["sourceConfig.owner", "sourceConfig.repositories.0", "sourceConfig.repositories.1", "sourceConfig.repositories.2", "sourceConfig.include.0", "sourceConfig.baseUrl", "sourceConfig.constructor"]))
    expect(errorPaths(readGitHubConfig({ ...base, repositories: Array.from({ length: 501 }, (_, i) => `r${i}`) }, settings))).toEqual(["sourceConfig.repositories"])
    expect(errorPaths(readGitHubConfig({ ...base, include: [] }, settings))).toEqual(["sourceConfig.include"])
    expect(errorPaths(readGitHubConfig({ ...base, baseUrl: "https://user:pw@github.example.com/api/v3" }, settings))).toEqual(["sourceConfig.baseUrl"])
  })
  it("keeps an App installation or a token, never echoing a bad value", () => {
    const key = makeAppKey()
    expect(readGitHubCredential({ appId: 1, installationId: 2, privateKeyPem: key.privateKeyPem }).ok).toBe(true)
    expect(readGitHubCredential({ token: "github_pat_11AAAAAAA0123456789abcdef" }).ok).toBe(true)
    for (const bad of [null, [], "x", { token: "has spaces secret-value" }, { appId: "1", installationId: 2, privateKeyPem: key.privateKeyPem }, { appId: 1, installationId: 2, privateKeyPem: "secret-value" }, { appId: 1, installationId: 2, privateKeyPem: key.privateKeyPem, token: "x" }]) {
      const read = readGitHubCredential(bad)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.message).not.toContain("secret-value")
    }
  })
})

describe("the GitHub permission mapping", () => {
  it("public: no source ACL; internal: the organization's members; private: its group, plus the organization for a base permission", () => {
    expect(repositoryAcl(repo("public"), "read")).toBeNull()
    expect(repositoryAcl(repo("internal"), null)).toEqual({ users: [], groups: [], organizations: [{ id: organizationId("acme"), displayName: "Members of Acme" }] })
    expect(repositoryAcl(repo("private"), "none")).toEqual({ users: [], groups: [{ id: repositoryGroupId("acme", "core"), displayName: "Acme/core" }] })
    expect(repositoryAcl(repo("private"), null)).toEqual({ users: [], groups: [{ id: "repo:acme/core", displayName: "Acme/core" }] })
    expect(repositoryAcl(repo("private"), "read")).toMatchObject({ organizations: [{ id: "org:acme" }] })
    // A user's private repository has no organization, whatever the setting says; an unknown visibility admits nobody.
    expect(repositoryAcl(repo("private", "User"), "read")).not.toHaveProperty("organizations")
    expect(repositoryAcl(repo("secret"), "read")).toEqual({ users: [], groups: [], unresolved: true })
  })
  it("maps a user by its SAML or verified-domain email, else its public one, else leaves it unmapped", () => {
    const directory = new Map([["ann-gh", "ann@example.com"]])
    expect(nativeUserOf({ id: 11, login: "Ann-GH" }, directory)).toEqual({ id: "user:11", displayName: "Ann-GH", email: "ann@example.com" })
    expect(nativeUserOf({ id: 12, login: "ben", email: "Ben@Example.com" }, directory)).toEqual({ id: "user:12", displayName: "ben", email: "ben@example.com" })
    expect(nativeUserOf({ id: 13, login: "oscar", email: null }, directory)).toEqual({ id: "user:13", displayName: "oscar" })
  })
  it("keeps issue numbers as merged ranges", () => {
    const ranges = addToRanges(addToRanges([], [1, 2, 3, 7, 5]), [4, 9, 10])
    expect(ranges).toEqual([[1, 5], [7, 7], [9, 10]])
    expect([1, 5, 6, 8, 10, 11].map((n) => inRanges(ranges, n))).toEqual([true, true, false, false, true, false])
  })
})

describe("the GitHub client against a hostile or unreachable GitHub", () => {
  const key = makeAppKey()
  const model: GitHubModel = {
    org: "acme", appId: 5, installationId: 6, basePermission: "none", users: new Map([["ann", { id: 1, login: "ann" }]]), members: new Set(["ann"]),
    samlEmails: new Map(), verifiedEmails: new Map(), teams: new Map(), repositories: new Map(), clock: 0
  }
  model.repositories.set("core", { id: 1, name: "core", visibility: "public", defaultBranch: "main", collaborators: new Set(), teams: new Set(), issues: new Map(), discussions: new Map(), files: new Map() })
  const at = tick(model)
  model.repositories.get("core")!.issues.set(1, { number: 1, title: "t", body: "b", state: "open", pull: false, author: "ann", comments: [], updatedAt: at, createdAt: at })
  let github: Awaited<ReturnType<typeof startGitHub>>
  const credential = JSON.stringify({ appId: 5, installationId: 6, privateKeyPem: key.privateKeyPem })
  const contextFor = (overrides: Partial<{ allowed: Array<string>; baseUrl: string }> = {}) => ({
    sourceConfig: { owner: "acme", repositories: ["core"], include: ["ISSUES"] },
    credential,
    settings: Settings.make({ dataDir: "/tmp/unused", allowedPrivateHosts: overrides.allowed ?? [github.host], connectorBaseUrls: { github: overrides.baseUrl ?? github.baseUrl, "github-graphql": `${overrides.baseUrl ?? github.baseUrl}/graphql` } })
  })
  beforeAll(async () => {
    github = await startGitHub(model, key.publicKeyPem)
  })
  afterAll(async () => {
    await github?.close()
  })

  it("authenticates as the installation and reads the repository", async () => {
    const tested = await Effect.runPromise(GitHubKind.testCredentials(contextFor()))
    expect(tested).toMatchObject({ authenticated: true, canReadContent: true, errorCode: null })
  })
  it("refuses a base URL on a private address (ADDRESS_NOT_ALLOWED) and fails the crawl on it", async () => {
    const tested = await Effect.runPromise(GitHubKind.testCredentials(contextFor({ allowed: [] })))
    expect(tested).toMatchObject({ authenticated: false, errorCode: "ADDRESS_NOT_ALLOWED" })
    const page = await Effect.runPromise(crawlGitHub(contextFor({ allowed: [] }), null))
    expect(page.failures?.[0]).toMatchObject({ code: "ADDRESS_NOT_ALLOWED", fatal: true })
  })
  it("stops reading an answer larger than the bound (TOO_LARGE), without waiting for it", async () => {
    github.state.hugePaths.add("/repos/acme/core/issues")
    try {
      const read = readGitHubConfig({ owner: "acme", repositories: ["core"], include: ["ISSUES"] }, contextFor().settings)
      if (!read.ok) throw new Error("config")
      const client = githubClient(read.config, { kind: "APP", appId: 5, installationId: 6, privateKeyPem: key.privateKeyPem }, contextFor().settings)
      await expect(client.rest.issues.listForRepo({ owner: "acme", repo: "core" })).rejects.toMatchObject({ code: "TOO_LARGE" })
    } finally {
      github.state.hugePaths.delete("/repos/acme/core/issues")
    }
  })
})
