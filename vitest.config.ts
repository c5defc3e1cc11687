import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const src = (pkg: string) => fileURLToPath(new URL(`./packages/${pkg}/src/index.ts`, import.meta.url))

export default defineConfig({
  resolve: {
    alias: {
      "@lore/sdk": src("sdk"),
      "@lore/server": src("server")
    }
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "packages/*/test/**/*.test.tsx"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks"
  }
})
