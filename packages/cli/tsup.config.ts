import { readdirSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { defineConfig, type Options } from "tsup"

type Plugin = NonNullable<Options["esbuildPlugins"]>[number]

const srcDir = join(dirname(fileURLToPath(import.meta.url)), "src")
const commandsDir = join(srcDir, "commands")

/** Every .ts/.tsx file under `dir` (not declarations), sorted. */
const sourceFiles = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [join(dir, entry.name)] : []))
    .sort()

/**
 * `virtual:lore-commands`: a module importing every file under src/commands, each with its path there
 * (`admin/users/list`). The program mounts them where they lie (src/program.ts), so a command is its file
 * and nothing else lists it.
 */
const commandsModule: Plugin = {
  name: "lore-commands",
  setup(build) {
    build.onResolve({ filter: /^virtual:lore-commands$/ }, () => ({ path: "lore-commands", namespace: "lore-commands" }))
    build.onLoad({ filter: /.*/, namespace: "lore-commands" }, () => {
      const files = sourceFiles(commandsDir)
      const imports = files.map((file, index) => `import * as command${index} from ${JSON.stringify(file)}`)
      const entries = files.map((file, index) => `{ path: ${JSON.stringify(relative(commandsDir, file).replace(/\\/g, "/").replace(/\.tsx?$/, ""))}, module: command${index} }`)
      return {
        contents: `${imports.join("\n")}\nexport default [${entries.join(", ")}]\n`,
        resolveDir: srcDir,
        loader: "ts",
        watchDirs: [commandsDir]
      }
    })
  }
}

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
  external: ["@lore/server", "ink", "@inkjs/ui", "react", "commander"],
  esbuildPlugins: [commandsModule]
})
