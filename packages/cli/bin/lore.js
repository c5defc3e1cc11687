#!/usr/bin/env node
// The `lore` binary. An installed package ships dist/ and this file only imports it. In a clone of the
// repository, `npm ci` links this file (it is committed, unlike dist/) but builds nothing, so the first
// `npx lore` builds the CLI here (under a second with tsup), and again whenever src/ (or the SDK's src/,
// which the CLI bundles) is newer than the build, so `npx lore` never runs stale code.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, statSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const cliDir = join(dirname(fileURLToPath(import.meta.url)), "..")
const built = join(cliDir, "dist", "lore.js")
const sources = [join(cliDir, "src"), join(cliDir, "..", "sdk", "src")]

// A directory's own time counts too: deleting or renaming a command file changes only its folder.
const newestChange = (dir) => {
  let newest = statSync(dir).mtimeMs
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    newest = Math.max(newest, entry.isDirectory() ? newestChange(path) : statSync(path).mtimeMs)
  }
  return newest
}

const needsBuild = () => {
  if (!existsSync(join(cliDir, "src"))) return false // an installed package: dist/ is all there is
  if (!existsSync(built)) return true
  const builtAt = statSync(built).mtimeMs
  return sources.some((dir) => existsSync(dir) && newestChange(dir) > builtAt)
}

if (needsBuild()) {
  let tsup
  try {
    tsup = createRequire(join(cliDir, "package.json")).resolve("tsup/dist/cli-default.js")
  } catch {
    process.stderr.write("lore: the CLI is not built and tsup is missing: run `npm ci` at the repository root first\n")
    process.exit(1)
  }
  process.stderr.write("lore: building the CLI (packages/cli/dist)…\n")
  const result = spawnSync(process.execPath, [tsup, "--silent"], { cwd: cliDir, stdio: ["ignore", "ignore", "inherit"] })
  if (result.status !== 0) {
    process.stderr.write(`lore: building the CLI failed (tsup exited ${result.status ?? result.signal})\n`)
    process.exit(1)
  }
}

await import("../dist/lore.js")
