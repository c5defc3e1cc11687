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

// The one-file-per-command shape of the CLI restructuring (the same definitions land with it; on this
// branch only commands/admin/ai/ uses them, mounted by aiCommands.ts).

/** At least one example, so every command's help shows how it is used. */
export type Examples = readonly [string, ...Array<string>]

export interface CommandSpec {
  readonly kind: "command"
  readonly description: string
  readonly aliases?: ReadonlyArray<string>
  readonly isDefault?: boolean
  readonly examples: Examples
  readonly notes?: string
  readonly configure?: (command: Command) => void
  readonly run: (runtime: import("./context").Runtime, command: Command) => Promise<void>
}

export interface GroupSpec {
  readonly kind: "group"
  readonly description: string
  readonly examples: Examples
}

export const defineCommand = (spec: Omit<CommandSpec, "kind">): CommandSpec => ({ kind: "command", ...spec })
export const defineGroup = (spec: Omit<GroupSpec, "kind">): GroupSpec => ({ kind: "group", ...spec })
