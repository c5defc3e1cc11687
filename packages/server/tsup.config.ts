import { defineConfig } from "tsup"

export default defineConfig({
  // parse-worker: the parse pool's worker thread, loaded by file name (src/parsing-pool/ParsePool.ts; the tasks it runs are in src/parse-worker), so its own entry.
  entry: { main: "src/main.ts", index: "src/index.ts", "parse-worker": "src/parse-worker/worker.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  dts: false
})
