import type { Command } from "commander"
import { createRuntime, type LoreClient, type Runtime } from "./context"

/**
 * A command group: one file under src/commands/ that adds its commands to the program. Adding a group
 * (admin, sources, search, assets, ...) is that file plus one line in src/commands/index.ts.
 */
export interface CommandModule {
  readonly register: (program: Command) => void
}

/**
 * Adapts a handler to commander's action signature; commander passes the command last. Handlers get the
 * runtime (flags, env, profile, output mode) and read their own arguments/options from the command.
 */
export const handler =
  (body: (runtime: Runtime, command: Command) => Promise<void>) =>
  (...params: unknown[]): Promise<void> => {
    const command = params[params.length - 1] as Command
    return body(createRuntime(command), command)
  }

/** Shapes of SDK results, named for the commands that render them. */
export type Me = Awaited<ReturnType<LoreClient["me"]["get"]>>
export type AccessToken = Awaited<ReturnType<LoreClient["tokens"]["list"]>>[number]
export type IssuedAccessToken = Awaited<ReturnType<LoreClient["tokens"]["create"]>>
export type Health = Awaited<ReturnType<LoreClient["platform"]["health"]>>
