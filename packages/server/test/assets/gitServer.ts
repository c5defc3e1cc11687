import { execFileSync, spawn } from "node:child_process"
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs"
import http from "node:http"
import type { AddressInfo } from "node:net"
import { dirname, join } from "node:path"

/**
 * A real git server for tests: `git http-backend` (the smart HTTP protocol, v2 included) behind a small node
 * server on loopback. Paths under /private/ need Basic credentials; paths under /redirect/ answer 302 to
 * `redirectTo`. Every Authorization header seen is recorded. `onRequest` may hold a request (until its promise
 * settles) to stop a client mid-way.
 */
export interface GitServer {
  readonly url: string
  readonly host: string
  readonly authorizations: Array<string>
  readonly close: () => Promise<void>
}

export const startGitServer = async (projectRoot: string, options: { credential?: { username: string; token: string }; redirectTo?: string; onRequest?: (url: URL) => Promise<void> | void } = {}): Promise<GitServer> => {
  const authorizations: Array<string> = []
  const expected = options.credential ? `Basic ${Buffer.from(`${options.credential.username}:${options.credential.token}`).toString("base64")}` : null
  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (options.onRequest) await options.onRequest(url)
    if (req.destroyed || res.destroyed) return
    if (req.headers.authorization) authorizations.push(req.headers.authorization)
    if (url.pathname.startsWith("/redirect/")) {
      res.writeHead(302, { location: `${options.redirectTo ?? "http://localhost:1"}${url.pathname.slice("/redirect".length)}${url.search}` })
      res.end()
      return
    }
    let path = url.pathname
    if (path.startsWith("/private/")) {
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { "www-authenticate": 'Basic realm="git"' })
        res.end()
        return
      }
      path = path.slice("/private".length)
    }
    const child = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: "1",
        PATH_INFO: path,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? "GET",
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        HTTP_CONTENT_ENCODING: (req.headers["content-encoding"] as string | undefined) ?? "",
        GIT_PROTOCOL: (req.headers["git-protocol"] as string | undefined) ?? "",
        REMOTE_ADDR: "127.0.0.1"
      }
    })
    req.pipe(child.stdin)
    let head = Buffer.alloc(0)
    let started = false
    child.stdout.on("data", (chunk: Buffer) => {
      if (started) {
        res.write(chunk)
        return
      }
      head = Buffer.concat([head, chunk])
      const end = head.indexOf("\r\n\r\n") >= 0 ? head.indexOf("\r\n\r\n") : head.indexOf("\n\n")
      if (end < 0) return
      const separator = head[end] === 0x0d ? 4 : 2
      let status = 200
      for (const line of head.subarray(0, end).toString("utf8").split(/\r?\n/)) {
        const colon = line.indexOf(":")
        const name = line.slice(0, colon).trim()
        const value = line.slice(colon + 1).trim()
        if (name.toLowerCase() === "status") status = Number(value.split(" ")[0])
        else res.setHeader(name, value)
      }
      res.statusCode = status
      started = true
      res.write(head.subarray(end + separator))
    })
    child.stdout.on("end", () => res.end())
    child.on("error", () => res.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    authorizations,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const git = (cwd: string, ...args: Array<string>) =>
  execFileSync("git", ["-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main", ...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim()

/** A working repository with files (a value starting with `symlink:` becomes a symbolic link); answers the commit. */
export const writeRepository = (dir: string, files: Record<string, string>) => {
  mkdirSync(dir, { recursive: true })
  try {
    git(dir, "rev-parse", "--git-dir")
  } catch {
    git(dir, "init", "-q")
  }
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    if (content.startsWith("symlink:")) symlinkSync(content.slice("symlink:".length), join(dir, path))
    else writeFileSync(join(dir, path), content)
  }
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "update")
  return git(dir, "rev-parse", "HEAD")
}

/** Publishes a working repository as a bare one (what servers hold), refreshed on each call. */
export const publish = (working: string, bare: string) => {
  try {
    git(bare, "rev-parse", "--git-dir")
  } catch {
    execFileSync("git", ["clone", "-q", "--bare", working, bare])
    return
  }
  git(working, "push", "-q", "--force", bare, "HEAD:main")
}
