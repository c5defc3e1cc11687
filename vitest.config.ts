import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (pkg: string, entry = "index") => fileURLToPath(new URL(`./packages/${pkg}/src/${entry}.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: {
      "@lore/sdk/node": src("sdk", "node"),
      "@lore/sdk": src("sdk"),
      "@lore/server": src("server")
    }
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "packages/*/test/**/*.test.tsx"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
    // Vitest defaults to one worker fewer than the CPUs, which is one worker on CI's two cores. Most
    // test time is spent waiting on servers, child processes and the database, so two files in flight
    // keep both cores busy and nearly halve the wall time.
    maxWorkers: 2,
    minWorkers: 1,
    // Files share their worker's module cache instead of importing the server afresh each (~2-3 s a file on
    // two cores; 13 access and identity files: 75 s -> 37 s). Nothing in the tests mocks modules or stubs
    // globals, and every file starts its own servers and databases, so nothing else carries over.
    isolate: false,
    globalSetup: ["packages/server/test/support/globalSetup.ts"]
  }
})
