import { Effect } from "effect"
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RepositorySettings } from "../Config"
import { checkOutboundUrl, type OutboundPolicy, outboundRefusal, resolveCheckedAll } from "../outbound/Guard"
import { RepositoryFetchFailed, RepositoryRefused } from "./Errors"

/**
 * The one git fetcher, shared by skill imports and the GIT connector: a shallow fetch of one revision with the
 * `git` binary into a temporary bare repository, then the tree and the blobs read from it; and `ls-remote` to
 * resolve a branch without fetching anything.
 * What it refuses before running anything: addresses that are not http(s) or (when allowed) file URLs, hosts
 * outside LORE_REPO_ALLOWED_HOSTS (`*`: any public host), loopback/private addresses unless listed in
 * LORE_ALLOWED_PRIVATE_HOSTS (the outbound guard, outbound/Guard.ts), credentials inside the address, revisions
 * that could pass for options. The host is resolved and every address checked once, then git connects to that
 * address only (`-c http.curloptResolve=host:port:address`), so DNS cannot change between the check and the fetch.
 * What git is told: only the file, http and https transports (GIT_ALLOW_PROTOCOL, so `ext::` and the rest are
 * off), never follow a redirect, never prompt, no system or user configuration. A credential travels as an
 * Authorization header set through the environment (GIT_CONFIG_*), never in the URL, argv or a message.
 */

export interface RepositoryCredential {
  /** Default `x-access-token` (GitHub, Gitea); GitLab takes `oauth2`. */
  readonly username?: string | undefined
  readonly token: string
}

export interface RepositoryRequest {
  readonly repository: string
  /** A branch, tag or commit; default the remote's HEAD. */
  readonly revision?: string | undefined
  readonly credential?: RepositoryCredential | undefined
}

export interface TreeEntry {
  readonly path: string
  readonly mode: string
  readonly oid: string
  readonly size: number
}

export interface FetchedTree {
  readonly commit: string
  readonly entries: ReadonlyArray<TreeEntry>
  /** The blobs' bytes, by object id. */
  readonly read: (oids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, Uint8Array>, RepositoryFetchFailed>
}

const REVISION = /^[A-Za-z0-9_][A-Za-z0-9._/-]{0,199}$/

/** Why a repository address is refused, in a fixed message (the address is never quoted: it might hold a secret). */
export interface RepositoryProblem {
  readonly detail: string
  /** The outbound guard refused the address (loopback/private): ADDRESS_NOT_ALLOWED in connector results. */
  readonly addressRefused: boolean
}

const problem = (detail: string, addressRefused = false): { readonly ok: false; readonly problem: RepositoryProblem } =>
  ({ ok: false, problem: { detail, addressRefused } })

/**
 * What can be decided about a repository address without the network: the transport, the host lists, the
 * private-address guard on literals and localhost names. Shared by fetches and by GIT connector validation.
 */
export const repositoryAddress = (
  settings: RepositorySettings,
  policy: OutboundPolicy,
  repository: string,
  revision: string | undefined
): { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly problem: RepositoryProblem } => {
  let url: URL
  try {
    url = new URL(repository.trim())
  } catch {
    return problem("The repository must be an http(s):// or file:// URL")
  }
  if (url.username || url.password) return problem("Credentials do not belong in the repository's address: send them as `credential`")
  if (revision !== undefined && (!REVISION.test(revision) || revision.includes("..") || revision.endsWith(".lock"))) {
    return problem("The revision must be a branch, tag or commit id (letters, digits, '.', '_', '/', '-')")
  }
  if (url.protocol === "file:") {
    if (!settings.allowFile) return problem("file:// repositories are not allowed on this server (LORE_REPO_ALLOW_FILE=1 allows them)")
    if (url.host !== "") return problem("A file:// repository names a local path (file:///path)")
    return { ok: true, url }
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return problem("This transport is not allowed: use https:// (or file:// where allowed)")
  }
  if (!hostAllowed(settings.allowedHosts, url)) return problem("The repository's host is not in LORE_REPO_ALLOWED_HOSTS")
  const guarded = checkOutboundUrl(url, policy)
  if (!guarded.ok) return problem("The repository's host is a loopback or private address, which this server does not fetch from (LORE_ALLOWED_PRIVATE_HOSTS)", true)
  return { ok: true, url }
}

const refusal = (found: RepositoryProblem) =>
  new RepositoryRefused({
    detail: found.detail,
    ...(found.addressRefused ? { errors: [{ path: "repository", message: "is a loopback or private address", code: "ADDRESS_NOT_ALLOWED" }] } : {})
  })

/** Whether a refusal came from the outbound guard (a private address) rather than the host list or the transport. */
export const isAddressRefusal = (error: RepositoryRefused) => error.errors?.some((e) => e.code === "ADDRESS_NOT_ALLOWED") ?? false

/** The repository's URL if the settings allow it; never quotes the address back (it might hold a secret). */
export const checkRepository = (settings: RepositorySettings, policy: OutboundPolicy, repository: string, revision: string | undefined) => {
  const checked = repositoryAddress(settings, policy, repository, revision)
  return checked.ok ? Effect.succeed(checked.url) : Effect.fail(refusal(checked.problem))
}

/**
 * The `-c http.curloptResolve=…` arguments that pin an http(s) repository's host to the address just checked
 * (none for file:// and IP literals, which do not resolve): git then connects to exactly what the guard saw.
 */
const pinnedAddress = (url: URL, policy: OutboundPolicy): Effect.Effect<ReadonlyArray<string>, RepositoryRefused | RepositoryFetchFailed> => {
  if (url.protocol === "file:") return Effect.succeed([])
  return Effect.tryPromise({
    try: () => resolveCheckedAll(url, policy),
    catch: (error) =>
      outboundRefusal(error)
        ? refusal({ detail: "The repository's host resolves to a loopback or private address, which this server does not fetch from (LORE_ALLOWED_PRIVATE_HOSTS)", addressRefused: true })
        : new RepositoryFetchFailed({ detail: "Could not reach the repository: its host name does not resolve" })
  }).pipe(
    Effect.map((addresses) => {
      if (url.hostname.startsWith("[") || addresses.some(({ address }) => address === url.hostname)) return []
      const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port)
      const pinned = addresses.map(({ address, family }) => (family === 6 ? `[${address}]` : address)).join(",")
      return ["-c", `http.curloptResolve=${url.hostname}:${port}:${pinned}`]
    })
  )
}

/** `host` admits the host on its scheme's default port, `host:port` that port only, `*` any public host (the outbound guard still applies). */
export const hostAllowed = (allowed: ReadonlyArray<string>, url: URL) =>
  allowed.some((entry) => entry === "*" || entry === url.host.toLowerCase())

interface Run {
  readonly code: number | null
  readonly stdout: Buffer
  readonly stderr: string
}

const run = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv, timeoutMs: number, input?: string) =>
  Effect.async<Run>((resume) => {
    const child = spawn("git", args, { env, stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    let err = ""
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => {
      if (err.length < 8192) err += chunk.toString("utf8")
    })
    child.on("error", (error) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code: -1, stdout: Buffer.alloc(0), stderr: error.message }))
    })
    child.on("close", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout: Buffer.concat(out), stderr: err }))
    })
    child.stdin.on("error", () => {})
    child.stdin.end(input ?? "")
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** git's complaint, without any URL in it (a URL could carry what it should not). */
const reason = (stderr: string) => {
  const line = stderr.split("\n").map((l) => l.trim()).find((l) => l.startsWith("fatal:") || l.startsWith("error:")) ?? stderr.split("\n")[0] ?? ""
  return line.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<repository>").replace(/'[^']*'/g, "'…'").slice(0, 300)
}

/** What git runs with: only file/http(s), no redirects, no prompts, no configuration; the credential as a header in the environment. */
const gitEnv = (home: string, credential: RepositoryCredential | undefined): NodeJS.ProcessEnv => {
  const config: Array<[string, string]> = [["http.followRedirects", "false"], ["credential.helper", ""], ["core.askPass", ""]]
  if (credential) {
    const basic = Buffer.from(`${credential.username ?? "x-access-token"}:${credential.token}`).toString("base64")
    config.push(["http.extraHeader", `Authorization: Basic ${basic}`])
  }
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    GIT_ALLOW_PROTOCOL: "file:http:https",
    GIT_CONFIG_COUNT: String(config.length),
    ...Object.fromEntries(config.flatMap(([key, value], i) => [[`GIT_CONFIG_KEY_${i}`, key], [`GIT_CONFIG_VALUE_${i}`, value]]))
  }
}

const withTemporaryDir = <A, E, R>(use: (dir: string) => Effect.Effect<A, E, R>) =>
  Effect.acquireUseRelease(
    Effect.promise(() => mkdtemp(join(tmpdir(), "lore-repo-"))),
    use,
    (dir) => Effect.promise(() => rm(dir, { recursive: true, force: true }))
  )

const failed = (what: string, result: Run) =>
  new RepositoryFetchFailed({ detail: `${what}${result.code === null ? " (timed out)" : ""}: ${reason(result.stderr)}` })

export type RepositoryFailureKind = "AUTHENTICATION_FAILED" | "REVISION_NOT_FOUND" | "REPOSITORY_UNREACHABLE"

/** What a fetch failure most likely was, from git's (already sanitized) complaint. */
export const failureKind = (detail: string): RepositoryFailureKind =>
  /authentication failed|could not read (username|password)|returned error: 40[13]/i.test(detail)
    ? "AUTHENTICATION_FAILED"
    : /couldn't find remote ref|no such ref|not our ref|revision is not a commit/i.test(detail)
      ? "REVISION_NOT_FOUND"
      : "REPOSITORY_UNREACHABLE"

/**
 * The commit a ref names on the remote (`git ls-remote`), or null when the repository has no such ref.
 * `ref` is a full ref name (`refs/heads/main`). Nothing is fetched.
 */
export const resolveRef = (
  settings: RepositorySettings,
  policy: OutboundPolicy,
  request: { readonly repository: string; readonly ref: string; readonly credential?: RepositoryCredential | undefined }
): Effect.Effect<string | null, RepositoryRefused | RepositoryFetchFailed> =>
  Effect.gen(function* () {
    const url = yield* checkRepository(settings, policy, request.repository, request.ref)
    const pin = yield* pinnedAddress(url, policy)
    return yield* withTemporaryDir((dir) =>
      Effect.gen(function* () {
        const listed = yield* run([...pin, "ls-remote", "--", url.toString(), request.ref], gitEnv(dir, request.credential), settings.fetchTimeoutMs)
        if (listed.code !== 0) return yield* failed("Could not reach the repository", listed)
        const line = listed.stdout.toString("utf8").split("\n").map((l) => l.split("\t")).find(([, name]) => name === request.ref)
        return line?.[0] ?? null
      })
    )
  })

/** Fetches one revision of a repository (depth 1) and lists its tree; the temporary repository is removed after `use`. */
export const withRepository = <A, E, R>(
  settings: RepositorySettings,
  policy: OutboundPolicy,
  request: RepositoryRequest,
  use: (tree: FetchedTree) => Effect.Effect<A, E, R>
): Effect.Effect<A, E | RepositoryRefused | RepositoryFetchFailed, R> =>
  Effect.gen(function* () {
    const url = yield* checkRepository(settings, policy, request.repository, request.revision)
    const pin = yield* pinnedAddress(url, policy)
    return yield* withTemporaryDir((dir) =>
      Effect.gen(function* () {
        const env = gitEnv(dir, request.credential)
        const git = join(dir, "repo.git")
        const init = yield* run(["init", "--bare", "-q", git], env, 10_000)
        if (init.code !== 0) return yield* failed("Could not prepare a repository", init)
        const fetched = yield* run([...pin, "-C", git, "fetch", "--depth", "1", "--no-tags", "--quiet", "--", url.toString(), request.revision ?? "HEAD"], env, settings.fetchTimeoutMs)
        if (fetched.code !== 0) return yield* failed("Could not fetch the repository at that revision", fetched)
        const parsed = yield* run(["-C", git, "rev-parse", "--verify", "FETCH_HEAD^{commit}"], env, 10_000)
        if (parsed.code !== 0) return yield* failed("The revision is not a commit", parsed)
        const commit = parsed.stdout.toString("utf8").trim()
        const listed = yield* run(["-C", git, "ls-tree", "-r", "-l", "-z", "--full-tree", commit], env, 60_000)
        if (listed.code !== 0) return yield* failed("Could not list the repository's files", listed)
        const entries = listed.stdout.toString("utf8").split("\0").filter((line) => line.length > 0).map((line): TreeEntry => {
          const tab = line.indexOf("\t")
          const [mode, , oid, size] = line.slice(0, tab).split(/\s+/)
          return { mode: mode!, oid: oid!, size: size === "-" ? 0 : Number(size), path: line.slice(tab + 1) }
        })
        const read = (oids: ReadonlyArray<string>) =>
          Effect.gen(function* () {
            const found = new Map<string, Uint8Array>()
            if (oids.length === 0) return found
            const batch = yield* run(["-C", git, "cat-file", "--batch"], env, 60_000, oids.join("\n") + "\n")
            if (batch.code !== 0) return yield* failed("Could not read the repository's files", batch)
            const out = batch.stdout
            let at = 0
            while (at < out.length) {
              const end = out.indexOf(0x0a, at)
              const [oid, type, size] = out.subarray(at, end).toString("utf8").split(" ")
              if (type !== "blob") return yield* failed("Could not read the repository's files", { ...batch, stderr: "missing object" })
              const length = Number(size)
              found.set(oid!, new Uint8Array(out.subarray(end + 1, end + 1 + length)))
              at = end + 1 + length + 1
            }
            return found
          })
        return yield* use({ commit, entries, read })
      })
    )
  })
