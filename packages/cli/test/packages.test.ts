import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliDir, ensureBuilt, newConfigHome } from "./support/cli"
import { installOffline, type PackedWorkspace, packWorkspaces, repoRoot } from "./support/pack"
import { type ServedLore, serveLore } from "./support/serve"

// @lore/sdk and @lore/cli as a user gets them: packed, installed into an empty folder outside the
// repository (offline, from the npm cache), with no server beside them.
const work = mkdtempSync(join(tmpdir(), "lore-packages-"))
const app = join(work, "app")
const installed = (path: string) => join(app, "node_modules", path)
let packed: Array<PackedWorkspace> = []
let served: ServedLore | undefined

interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs a program in the install folder with a bare environment (no LORE_*, no npm_* of this run). */
const run = (file: string, args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<Run> =>
  new Promise((resolve) => {
    const options = { cwd: app, env: { PATH: process.env.PATH ?? "", HOME: tmpdir(), ...env }, timeout: 60_000 }
    execFile(file, [...args], options, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr })
    )
  })

const installedLore = (args: ReadonlyArray<string>, env?: Record<string, string>) => run(installed(".bin/lore"), args, env)

const sdkVersion = JSON.parse(readFileSync(join(repoRoot, "packages", "sdk", "package.json"), "utf8")).version as string
const cliVersion = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")).version as string

beforeAll(() => {
  // `npm test` builds both first; a lone vitest run builds what is missing.
  if (!existsSync(join(repoRoot, "packages", "sdk", "dist", "index.js"))) {
    execFileSync("npx", ["tsup"], { cwd: join(repoRoot, "packages", "sdk"), stdio: "ignore", timeout: 180_000 })
  }
  ensureBuilt()
  mkdirSync(app)
  packed = packWorkspaces(work, ["@lore/sdk", "@lore/cli"])
  installOffline(app, packed)
}, 240_000)

afterAll(async () => {
  await served?.stop()
  rmSync(work, { recursive: true, force: true })
})

describe("the published packages", () => {
  it("hold only their build and a manifest that names no private package", () => {
    for (const { name, files } of packed) {
      expect(files, name).toContain("package.json")
      expect(files.filter((file) => !/^(dist|bin)\/|^package\.json$|^README(\.md)?$/.test(file)), name).toEqual([])
    }
    expect(packed.find((p) => p.name === "@lore/cli")!.files).toEqual(expect.arrayContaining(["bin/lore.js", "dist/lore.js"]))
    // The SDK's tarball tells a newcomer how to install it, search, handle errors and stream chat (issue 33.8).
    expect(packed.find((p) => p.name === "@lore/sdk")!.files).toContain("README.md")

    const cli = JSON.parse(readFileSync(installed("@lore/cli/package.json"), "utf8"))
    expect(Object.keys(cli.dependencies).sort()).toEqual(["@inkjs/ui", "@modelcontextprotocol/sdk", "commander", "fflate", "ink", "react", "yaml"])
    expect(cli.peerDependenciesMeta["@lore/server"]).toEqual({ optional: true })
    expect(cli.engines.node).toBe(">=20.11")
    const sdk = JSON.parse(readFileSync(installed("@lore/sdk/package.json"), "utf8"))
    expect(Object.keys(sdk.dependencies).some((name) => name.startsWith("@lore/"))).toBe(false)
    expect(sdk.engines.node).toBe(">=20.11")
    expect(Object.keys(sdk.exports)).toEqual([".", "./node", "./package.json"])
  })

  it("link `lore` on a fresh clone: the bin is a committed file, not a build output npm ci cannot see", () => {
    const bin = JSON.parse(readFileSync(join(cliDir, "package.json"), "utf8")).bin.lore as string
    expect(bin).toBe("./bin/lore.js")
    expect(execFileSync("git", ["ls-files", "packages/cli/bin/lore.js"], { cwd: repoRoot, encoding: "utf8" }).trim()).toBe("packages/cli/bin/lore.js")
  })

  it("install without the server, its database or its parsers", () => {
    expect(existsSync(installed("@lore/cli/dist/lore.js"))).toBe(true)
    expect(existsSync(installed("@lore/sdk/dist/index.js"))).toBe(true)
    for (const absent of ["@lore/server", "@electric-sql/pglite", "effect", "unpdf", "mammoth", "openapi-typescript"]) {
      expect(existsSync(installed(absent)), absent).toBe(false)
    }
  })

  it("run `lore --version` from the install folder", async () => {
    const result = await installedLore(["--version"])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim()).toBe(cliVersion)
    expect(result.stderr).not.toContain("building") // an installed CLI never builds
  })

  it("`lore serve` without the server exits 1 saying how to get it, in words and in JSON", async () => {
    const human = await installedLore(["serve", "--port", "0"])
    expect(human.code).toBe(1)
    expect(human.stderr).toContain("code SERVER_NOT_INSTALLED")
    expect(human.stderr).toContain("npm ci && npm start")

    const json = await installedLore(["serve", "--json"])
    expect(json.code).toBe(1)
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "SERVER_NOT_INSTALLED", status: 0, detail: expect.stringContaining("@lore/server") })
  })

  it("call a running server through the installed SDK (ESM and CommonJS) and the installed CLI", async () => {
    served = await serveLore()
    const env = { LORE_URL: served.url, LORE_TOKEN: served.adminToken }

    const esm = await run(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import { createLoreClient, SDK_VERSION } from "@lore/sdk"
         const lore = createLoreClient({ baseUrl: process.env.LORE_URL, token: process.env.LORE_TOKEN })
         const [health, me] = await Promise.all([lore.platform.health(), lore.me.get()])
         console.log(JSON.stringify({ version: SDK_VERSION, status: health.status, email: me.email }))`
      ],
      env
    )
    expect(esm.code, esm.stderr).toBe(0)
    expect(JSON.parse(esm.stdout)).toEqual({ version: sdkVersion, status: "ok", email: "admin@lore.local" })

    const cjs = await run(
      process.execPath,
      [
        "-e",
        `const { createLoreClient, LoreApiError } = require("@lore/sdk")
         createLoreClient({ baseUrl: process.env.LORE_URL, token: "lore_pat_not_a_real_token_000000000" }).me.get()
           .then(() => process.exit(2), (error) => console.log(JSON.stringify({ lore: LoreApiError.is(error), status: error.status })))`
      ],
      env
    )
    expect(cjs.code, cjs.stderr).toBe(0)
    expect(JSON.parse(cjs.stdout)).toEqual({ lore: true, status: 401 })

    const whoami = await installedLore(["whoami", "--json"], {
      LORE_SERVER: served.url,
      LORE_TOKEN: served.adminToken,
      XDG_CONFIG_HOME: newConfigHome()
    })
    expect(whoami.code, whoami.stderr).toBe(0)
    expect(JSON.parse(whoami.stdout).email).toBe("admin@lore.local")
  })
})
