/**
 * Every file under src/commands, made into a module at build time by the esbuild plugin in
 * tsup.config.ts: `path` is the file's path below src/commands without `.ts` (`admin/users/list`,
 * `admin/users/index`), `module` the file itself.
 */
declare module "virtual:lore-commands" {
  import type { CommandSpec, GroupSpec } from "./command"
  const files: ReadonlyArray<{ readonly path: string; readonly module: { readonly default: CommandSpec | GroupSpec } }>
  export default files
}
