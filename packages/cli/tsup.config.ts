import { defineConfig } from "tsup"

export default defineConfig({
  entry: { lore: "src/lore.ts" },
  format: ["esm"],
  target: "node20",
  platform: "node",
  sourcemap: true,
  clean: true,
  dts: false,
  // Ink is loaded with a dynamic import only on a TTY; splitting keeps it (and React) off the piped path.
  splitting: true,
  banner: { js: "#!/usr/bin/env node" },
  // The SDK is bundled so the binary runs from the workspace without building the SDK's dist first;
  // the server stays external (loaded on demand by `lore serve`), and so do the UI libraries.
  noExternal: ["@lore/sdk"],
  external: ["@lore/server", "ink", "@inkjs/ui", "react", "commander"]
})
