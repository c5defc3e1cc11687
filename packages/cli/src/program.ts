import { Command, CommanderError, Help, type Option } from "commander"
import commandFiles from "virtual:lore-commands"
import { type CommandSpec, type GroupSpec, handler, HELP_GROUPS, type HelpGroup } from "./command"
import { cliVersion } from "./context"
import { exitCodeHelp } from "./errors"

const environmentHelp = `Environment:
  LORE_SERVER      server URL; overrides the profile's (--server overrides both); LORE_URL is read when it is unset
  LORE_TOKEN       personal access token; overrides the profile's saved token
  LORE_PROFILE     profile to use when --profile is not given (default "default")
  XDG_CONFIG_HOME  profiles live in $XDG_CONFIG_HOME/lore/config.json (default ~/.config/lore)
  NO_COLOR         disable colors, like --no-color
  CI               when set, never prompt (a missing value fails naming the flag to pass) and never
                   animate: output is plain text, as when piped`

/**
 * A usage error raised by commander for a command, with the command it concerns, so lore.ts points to
 * that command's help rather than the program's.
 */
export class CommandUsageError extends Error {
  constructor(
    readonly error: CommanderError,
    readonly command: Command
  ) {
    super(error.message)
  }
}

const examplesHelp = (examples: ReadonlyArray<string>) => `\nExamples:\n${examples.map((example) => `  $ ${example}`).join("\n")}`

/** Commander's help says nothing of `requiredOption`s; Lore's marks them, as `gh` does: "(required)". */
const optionDescription = (option: Option) => {
  const described = Help.prototype.optionDescription.call(new Help(), option)
  return option.mandatory ? `${described} (required)` : described
}

/** Every command reports its own errors to lore.ts, which prints them in the documented format, never commander. */
const quiet = (command: Command) =>
  command
    .exitOverride((error) => {
      throw new CommandUsageError(error, command)
    })
    .configureOutput({ outputError: () => undefined })
    .configureHelp({ optionDescription })
    .showSuggestionAfterError()

/**
 * `lore tokens` runs `lore tokens list`, and so would `lore tokens lsit`, with "lsit" as an argument of
 * list: a word that is not one of the group's commands is refused as an unknown command instead.
 */
const refuseUnknownSubcommands = (group: Command, defaultCommand: Command) =>
  group.hook("preSubcommand", (thisCommand, subcommand) => {
    const [first] = thisCommand.args
    const known = thisCommand.commands.map((command) => command.name())
    const named = thisCommand.commands.some((command) => command.name() === first || command.aliases().includes(first ?? ""))
    if (subcommand === defaultCommand && first !== undefined && !first.startsWith("-") && !named) {
      thisCommand.error(`error: unknown command '${first}' (commands: ${known.join(", ")})`, { code: "commander.unknownCommand", exitCode: 2 })
    }
  })

const groupPosition = (spec: CommandSpec | GroupSpec) => HELP_GROUPS.indexOf(spec.helpGroup ?? ("Knowledge" satisfies HelpGroup))

/**
 * The `lore` program: global flags, then every file under src/commands (found at build time, see
 * tsup.config.ts) mounted where it lies, folders as groups.
 */
export const createProgram = (): Command => {
  const program = quiet(
    new Command("lore")
      .description("Lore: permission-aware organizational knowledge and governed AI assets, from the command line")
      .version(cliVersion, "-v, --version", "print the CLI version")
      .option("--json", "print exactly one JSON document on stdout (errors too); progress goes to stderr")
      .option("--server <url>", "server URL (default: LORE_SERVER, then the profile's, then http://127.0.0.1:8787)")
      .option("--profile <name>", "saved profile to use (default: LORE_PROFILE, then \"default\")")
      .option("--no-color", "disable colors")
      .addHelpText("after", `\n${environmentHelp}\n\n${exitCodeHelp}\n\nDocumentation: docs/cli.md`)
  )
  const specs = new Map(commandFiles.map((file) => [file.path, file.module.default]))
  const mounted = new Map<string, Command>([["", program]])

  const mount = (path: string): Command => {
    const existing = mounted.get(path)
    if (existing) return existing
    const slash = path.lastIndexOf("/")
    const parent = mount(slash === -1 ? "" : path.slice(0, slash))
    const name = path.slice(slash + 1)
    const spec = specs.get(path) ?? specs.get(`${path}/index`)
    if (!spec) throw new Error(`src/commands/${path}/ has no index.ts describing the group`)
    const command = quiet(parent.command(name, spec.kind === "command" && spec.isDefault ? { isDefault: true } : {}))
      .description(spec.description)
      .addHelpText("after", examplesHelp(spec.examples) + (spec.kind === "command" && spec.notes ? `\n\n${spec.notes}` : ""))
    if (spec.helpGroup) command.helpGroup(`${spec.helpGroup}:`)
    if (spec.kind === "command") {
      if (spec.isDefault) refuseUnknownSubcommands(parent, command)
      for (const alias of spec.aliases ?? []) command.alias(alias)
      spec.configure?.(command)
      command.action(handler(spec.run))
    }
    mounted.set(path, command)
    return command
  }

  // Top-level commands by help section, then every path in name order (a group before its commands).
  const paths = [...specs.keys()].map((path) => path.replace(/\/index$/, "")).sort((a, b) => {
    const top = (path: string) => specs.get(path.split("/")[0]!) ?? specs.get(`${path.split("/")[0]}/index`)!
    return groupPosition(top(a)) - groupPosition(top(b)) || a.localeCompare(b)
  })
  for (const path of paths) mount(path)
  return program
}
