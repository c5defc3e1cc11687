import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { readFileSync, writeFileSync } from "node:fs"
import { join, relative } from "node:path"
import { cliDir } from "./cli"

export const repoRoot = join(cliDir, "..", "..")

export interface PackedWorkspace {
  readonly name: string
  /** The workspace folder relative to the repository root, e.g. `packages/cli`. */
  readonly dir: string
  /** Absolute path of the tarball `npm pack` wrote. */
  readonly tarball: string
  /** Paths inside the tarball (package/ prefix removed). */
  readonly files: ReadonlyArray<string>
}

interface LockEntry {
  version?: string
  integrity?: string
  link?: boolean
  dev?: boolean
  devOptional?: boolean
  optional?: boolean
  peer?: boolean
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
  [key: string]: unknown
}

/** `npm pack` of workspaces (their dist must be built) into `destination`. */
export const packWorkspaces = (destination: string, names: ReadonlyArray<string>): Array<PackedWorkspace> => {
  const args = ["pack", ...names.flatMap((name) => ["-w", name]), "--pack-destination", destination, "--json"]
  const packed = JSON.parse(execFileSync("npm", args, { cwd: repoRoot, env: npmEnv(), encoding: "utf8", timeout: 120_000 })) as Array<{
    name: string
    filename: string
    files: Array<{ path: string }>
  }>
  const lock = readRepoLock()
  return packed.map((result) => {
    const dir = Object.keys(lock).find((key) => key.startsWith("packages/") && lock[key]!.name === result.name)
    if (!dir) throw new Error(`${result.name} is not a workspace of the repository`)
    return { name: result.name, dir, tarball: join(destination, result.filename), files: result.files.map((file) => file.path) }
  })
}

/** npm run from `npm test` inherits npm_* settings of the repository's run (workspace, prefix): drop them. */
export const npmEnv = () => Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)))

const readRepoLock = (): Record<string, LockEntry & { name?: string }> =>
  JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")).packages

/** Node's lookup, over lockfile paths: `<from>/node_modules/<name>`, then each enclosing node_modules. */
const locate = (lock: Record<string, LockEntry>, from: string, name: string): string | undefined => {
  let base = from
  for (;;) {
    const key = base ? `${base}/node_modules/${name}` : `node_modules/${name}`
    if (lock[key]) return key
    if (!base) return undefined
    const parent = base.lastIndexOf("/node_modules/")
    base = parent >= 0 ? base.slice(0, parent) : ""
  }
}

/** What npm installs for an entry: its dependencies, optional ones it has, and its required peers. */
const wanted = (entry: LockEntry) => ({
  required: {
    ...entry.dependencies,
    ...Object.fromEntries(
      Object.entries(entry.peerDependencies ?? {}).filter(([name]) => !entry.peerDependenciesMeta?.[name]?.optional)
    )
  },
  optional: entry.optionalDependencies ?? {}
})

const integrityOf = (file: string) => `sha512-${createHash("sha512").update(readFileSync(file)).digest("base64")}`

/**
 * Installs packed workspaces into `appDir` (which must hold nothing yet) as a user would from a registry,
 * but offline: `npm install --offline` would need the registry's package documents, which `npm ci` never
 * caches, so this writes the lockfile npm would have written (the tarballs plus their runtime dependencies
 * at the versions of the repository's lockfile, whose tarballs `npm ci` left in the npm cache) and runs
 * `npm ci --offline`. Only runtime dependencies are followed: dev dependencies and optional peers (the
 * server, for the CLI) are not installed, exactly as from a registry.
 */
export const installOffline = (appDir: string, packed: ReadonlyArray<PackedWorkspace>) => {
  const lock = readRepoLock()
  const out: Record<string, LockEntry> = {}
  // Lockfile paths inside a workspace move under node_modules/<name>, where the tarball is extracted.
  const reroot = (key: string) => {
    const workspace = packed.find((p) => key.startsWith(`${p.dir}/`))
    return workspace ? `node_modules/${workspace.name}/${key.slice(workspace.dir.length + 1)}` : key
  }
  const visit = (from: string, dependencies: Record<string, string>, optional: boolean) => {
    for (const name of Object.keys(dependencies)) {
      const key = locate(lock, from, name)
      if (!key) {
        if (optional) continue
        throw new Error(`${name} (needed by ${from}) is not in package-lock.json`)
      }
      const entry = lock[key]!
      if (entry.link) throw new Error(`${from} depends on the workspace ${name}: a published package cannot`)
      if (out[reroot(key)]) continue
      const { dev: _dev, devOptional: _devOptional, peer: _peer, optional: _optional, ...kept } = entry
      out[reroot(key)] = kept
      const next = wanted(entry)
      visit(key, next.required, false)
      visit(key, next.optional, true)
    }
  }
  const root: Record<string, string> = {}
  for (const workspace of packed) {
    const manifest = lock[workspace.dir]!
    const spec = `file:${relative(appDir, workspace.tarball)}`
    root[workspace.name] = spec
    const { name: _name, dev: _dev, devDependencies: _devDependencies, ...kept } = manifest as LockEntry & { name?: string }
    out[`node_modules/${workspace.name}`] = { ...kept, resolved: spec, integrity: integrityOf(workspace.tarball) }
    const next = wanted(manifest)
    visit(workspace.dir, next.required, false)
    visit(workspace.dir, next.optional, true)
  }
  const manifest = { name: "lore-install-check", private: true, dependencies: root }
  writeFileSync(join(appDir, "package.json"), JSON.stringify(manifest, null, 2))
  writeFileSync(
    join(appDir, "package-lock.json"),
    JSON.stringify({ name: manifest.name, lockfileVersion: 3, requires: true, packages: { "": manifest, ...out } }, null, 2)
  )
  execFileSync("npm", ["ci", "--offline", "--ignore-scripts", "--no-audit", "--no-fund"], {
    cwd: appDir,
    env: npmEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 120_000
  })
}
