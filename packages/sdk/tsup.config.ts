import { defineConfig } from "tsup"

// Platform neutral: the main bundle runs in Node 20 and in browsers, so src/ must not import node:*;
// the one exception is src/node.ts, the `@lore/sdk/node` entry, which imports only types from the rest.
export default defineConfig({
  entry: ["src/index.ts", "src/node.ts"],
  external: [/^node:/],
  format: ["esm", "cjs"],
  target: "es2022",
  platform: "neutral",
  sourcemap: true,
  clean: true,
  // Bundled: openapi-fetch's CJS build has `exports.default` without __esModule, so a require()d
  // copy would hand our CJS output the module object instead of createClient.
  noExternal: ["openapi-fetch"],
  // The workspace tsconfig is a composite project (emitDeclarationOnly); tsup's dts build wants a plain one.
  dts: { compilerOptions: { composite: false, incremental: false } }
})
