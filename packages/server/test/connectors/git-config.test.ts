import { describe, expect, it } from "vitest"
import { documentStamp, gitCredential, normalizePath, parseGitConfig, readGitCredential, validateGitConfig } from "../../src/connectors/GitConfig"
import { browseUrlOf, mediaTypeOf, titleOf, underPaths } from "../../src/connectors/GitDocuments"
import { failureKind } from "../../src/git/Repository"

/** The GIT kind's rules that need no repository: settings, credentials, file types, titles, links, failures. */

const readers = { users: [{ id: "u1", email: "Ann@Example.com" }] }
const bytes = (text: string) => new TextEncoder().encode(text)

describe("GIT settings", () => {
  it("accepts a minimal config and fills the defaults", () => {
    const config = { repository: "https://github.com/acme/handbook.git", readers }
    expect(validateGitConfig(config)).toEqual([])
    expect(parseGitConfig({ ...config, paths: ["docs/", "./docs", "guides"] })).toMatchObject({
      branch: "main", paths: ["docs", "guides"], classification: "INTERNAL", maxFileBytes: null, browseUrl: null,
      readers: { users: [{ id: "u1", email: "ann@example.com" }], groups: [] }, groups: []
    })
  })

  it("names each broken field without quoting the address", () => {
    const errors = validateGitConfig({
      repository: "https://me:hunter2secret@example.com/x.git", branch: "a..b", paths: ["/etc", "a/../b", 3], classification: "TOP",
      maxFileBytes: 0, browseUrl: "https://example.com/no-placeholder", readers: { users: [{ id: "" }], groups: [{ id: "g", members: "all" }], others: [] }
    })
    expect(errors.map((e) => e.path)).toEqual([
      "sourceConfig.repository", "sourceConfig.branch", "sourceConfig.paths[0]", "sourceConfig.paths[1]", "sourceConfig.paths[2]",
      "sourceConfig.classification", "sourceConfig.maxFileBytes", "sourceConfig.browseUrl", "sourceConfig.readers.others",
      "sourceConfig.readers.users[0].id", "sourceConfig.readers.groups[0].members"
    ])
    expect(JSON.stringify(errors)).not.toContain("hunter2secret")
    expect(validateGitConfig({ repository: "ssh://git@example.com/x.git", readers }).map((e) => e.path)).toEqual(["sourceConfig.repository"])
    expect(validateGitConfig({ repository: "file:///srv/git/x.git", readers: { users: [], groups: [] } }).map((e) => e.path)).toEqual(["sourceConfig.readers"])
  })

  it("normalizes path prefixes and matches whole segments", () => {
    expect(normalizePath("./docs/")).toBe("docs")
    expect(normalizePath("..")).toBeNull()
    expect(normalizePath("")).toBeNull()
    expect(underPaths(["docs"], "docs/a.md")).toBe(true)
    expect(underPaths(["docs"], "docs")).toBe(true)
    expect(underPaths(["docs"], "docs-old/a.md")).toBe(false)
    expect(underPaths([], "anything.md")).toBe(true)
  })

  it("changes the document stamp when what documents carry changes, not otherwise", () => {
    const base = parseGitConfig({ repository: "https://example.com/x.git", readers })
    expect(documentStamp(base)).toBe(documentStamp(parseGitConfig({ repository: "https://example.com/x.git", readers, paths: ["docs"] })))
    expect(documentStamp(base)).not.toBe(documentStamp(parseGitConfig({ repository: "https://example.com/x.git", readers: { users: [{ id: "u2" }] } })))
    expect(documentStamp(base)).not.toBe(documentStamp(parseGitConfig({ repository: "https://example.com/x.git", readers, classification: "CONFIDENTIAL" })))
  })
})

describe("GIT credentials", () => {
  it("takes a token or { username, token } (also as JSON text) and never repeats it", () => {
    expect(readGitCredential("tok-123")).toEqual({ ok: true, secret: "tok-123" })
    const pair = readGitCredential({ username: "oauth2", token: "tok-456" })
    expect(pair).toEqual({ ok: true, secret: JSON.stringify({ username: "oauth2", token: "tok-456" }) })
    expect(readGitCredential(JSON.stringify({ username: "oauth2", token: "tok-456" }))).toEqual(pair)
    expect(gitCredential(pair.ok ? pair.secret : null)).toEqual({ username: "oauth2", token: "tok-456" })
    expect(gitCredential("tok-123")).toEqual({ token: "tok-123" })
    for (const bad of ["", "has space-secretvalue", { token: "x", extra: 1 }, { username: "a:b", token: "secretvalue9" }, 42, "{not json secretvalue"]) {
      const read = readGitCredential(bad)
      expect(read.ok).toBe(false)
      if (!read.ok) expect(read.message).not.toContain("secretvalue")
    }
  })
})

describe("GIT documents", () => {
  it("indexes Markdown, text, HTML, PDF and DOCX by extension only", () => {
    expect(["a.md", "b.MARKDOWN", "c.txt", "d.html", "e.htm", "f.pdf", "g.docx"].map(mediaTypeOf)).toEqual([
      "text/markdown", "text/markdown", "text/plain", "text/html", "text/html", "application/pdf",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
    ])
    expect(["a.png", "Makefile", "dir.md/file", "x.doc"].map(mediaTypeOf)).toEqual([undefined, undefined, undefined, undefined])
  })

  it("titles a document by its front matter, first heading, HTML title, else its file name", () => {
    expect(titleOf("docs/a.md", "text/markdown", bytes("---\ntitle: \"From front matter\"\n---\n# Heading\n"))).toBe("From front matter")
    expect(titleOf("docs/a.md", "text/markdown", bytes("Intro\n\n```md\n# In a fence\n```\n## Real heading ##\n"))).toBe("Real heading")
    expect(titleOf("docs/a.md", "text/markdown", bytes("no heading here\n"))).toBe("a.md")
    expect(titleOf("b.html", "text/html", bytes("<html><head><title> Caf&eacute; &amp; <b>tea</b> </title></head></html>"))).toBe("Caf&eacute; & tea")
    expect(titleOf("b.html", "text/html", bytes("<h1 class=x>Only &#72;1</h1>"))).toBe("Only H1")
    expect(titleOf("c/d.pdf", "application/pdf", bytes("%PDF-1.7 # not a heading"))).toBe("d.pdf")
  })

  it("links files on known hosts or through a template, else not at all", () => {
    const link = (repository: string, extra: Record<string, unknown> = {}) =>
      browseUrlOf(parseGitConfig({ repository, readers, branch: "release/1", ...extra }), "abc123", "docs/a b.md")
    expect(link("https://github.com/acme/handbook.git")).toBe("https://github.com/acme/handbook/blob/release/1/docs/a%20b.md")
    expect(link("https://gitlab.com/acme/team/handbook")).toBe("https://gitlab.com/acme/team/handbook/-/blob/release/1/docs/a%20b.md")
    expect(link("https://codeberg.org/acme/handbook.git")).toBe("https://codeberg.org/acme/handbook/src/branch/release/1/docs/a%20b.md")
    expect(link("https://git.internal.example/acme/handbook.git")).toBeNull()
    expect(link("file:///srv/git/handbook.git")).toBeNull()
    expect(link("https://git.internal.example/x.git", { browseUrl: "https://docs.example/{commit}/{path}" })).toBe("https://docs.example/abc123/docs/a%20b.md")
  })

  it("tells authentication failures and missing branches from unreachable repositories", () => {
    expect(failureKind("Could not fetch the repository at that revision: fatal: Authentication failed for '…'")).toBe("AUTHENTICATION_FAILED")
    expect(failureKind("fatal: could not read Username for '…': terminal prompts disabled")).toBe("AUTHENTICATION_FAILED")
    expect(failureKind("fatal: couldn't find remote ref refs/heads/nope")).toBe("REVISION_NOT_FOUND")
    expect(failureKind("fatal: '…' does not appear to be a git repository")).toBe("REPOSITORY_UNREACHABLE")
    expect(failureKind("fatal: unable to access '…': Failed to connect to 127.0.0.1 port 4013")).toBe("REPOSITORY_UNREACHABLE")
  })
})
