import type { Command } from "commander"
import { createRuntime, type LoreClient, type Runtime } from "./context"
import { CliError, ExitCode } from "./errors"

/**
 * One file per command. A file under src/commands/ is a command, and where it is is its name:
 * `src/commands/admin/users/list.ts` is `lore admin users list`. A folder is a command group; its
 * `index.ts` describes the group. The program (program.ts) finds every file at build time, so adding a
 * command is adding its file: nothing else lists it.
 */

/** Where a top-level command is listed in `lore --help`, in this order. */
export const HELP_GROUPS = ["Getting started", "Knowledge", "Administration"] as const
export type HelpGroup = (typeof HELP_GROUPS)[number]

/** At least one example, so every command's help shows how it is used. */
export type Examples = readonly [string, ...Array<string>]

export interface CommandSpec {
  readonly kind: "command"
  readonly description: string
  /** For a top-level command: the section of `lore --help` it is listed in. */
  readonly helpGroup?: HelpGroup
  readonly aliases?: ReadonlyArray<string>
  /** `lore <group>` alone (and `lore --json <group>`) runs this subcommand. */
  readonly isDefault?: boolean
  /** Command lines with, after `#`, what they do; shown under "Examples:" in the command's help. */
  readonly examples: Examples
  /** More help after the examples (what exits 0, where things come from). */
  readonly notes?: string
  /** Arguments and options. */
  readonly configure?: (command: Command) => void
  /** The work; reads its arguments from `command.processedArgs` and its flags from `command.opts()`. */
  readonly run: (runtime: Runtime, command: Command) => Promise<void>
}

export interface GroupSpec {
  readonly kind: "group"
  readonly description: string
  readonly helpGroup?: HelpGroup
  readonly examples: Examples
}

export const defineCommand = (spec: Omit<CommandSpec, "kind">): CommandSpec => ({ kind: "command", ...spec })
export const defineGroup = (spec: Omit<GroupSpec, "kind">): GroupSpec => ({ kind: "group", ...spec })

/** `lore admin users list` for a command, from the program down. */
export const commandPath = (command: Command): string => {
  const names: Array<string> = []
  for (let current: Command | null = command; current; current = current.parent) names.unshift(current.name())
  return names.join(" ")
}

/** The line that ends a usage error: the help of the command that refused. */
export const helpHint = (command: Command) => `See '${commandPath(command)} --help'.`

/**
 * Adapts a command's `run` to commander's action signature (commander passes the command last), with the
 * runtime (flags, env, profile, output mode). A usage error found by the command itself points to the
 * command's own help, like the ones commander finds.
 */
export const handler =
  (run: CommandSpec["run"]) =>
  async (...params: unknown[]): Promise<void> => {
    const command = params[params.length - 1] as Command
    try {
      await run(createRuntime(command), command)
    } catch (error) {
      if (error instanceof CliError && error.exitCode === ExitCode.usage && !error.hint?.includes("--help")) {
        const hint = [error.hint, helpHint(command)].filter((line) => line !== undefined).join("\n")
        throw new CliError(error.exitCode, error.code, error.detail, error.status, error.requestId, hint, error.errors)
      }
      throw error
    }
  }

/** Shapes of SDK results, named for the commands that render them. */
export type Me = Awaited<ReturnType<LoreClient["me"]["get"]>>
export type AccessToken = Awaited<ReturnType<LoreClient["tokens"]["list"]>>[number]
export type IssuedAccessToken = Awaited<ReturnType<LoreClient["tokens"]["create"]>>
export type Health = Awaited<ReturnType<LoreClient["platform"]["health"]>>
