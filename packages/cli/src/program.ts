import { Command } from "commander"
import { commandModules } from "./commands"
import { cliVersion } from "./context"
import { exitCodeHelp } from "./errors"

const environmentHelp = `Environment:
  LORE_SERVER      server URL; overrides the profile's (--server overrides both)
  LORE_TOKEN       personal access token; overrides the profile's saved token
  LORE_PROFILE     profile to use when --profile is not given (default "default")
  XDG_CONFIG_HOME  profiles live in $XDG_CONFIG_HOME/lore/config.json (default ~/.config/lore)
  NO_COLOR         disable colors, like --no-color
  CI               when set, never prompt: a missing value fails naming the flag to pass`

/** The `lore` program: global flags, then each command group registers itself. */
export const createProgram = (): Command => {
  const program = new Command("lore")
    .description("Lore: permission-aware organizational knowledge and governed AI assets, from the command line")
    .version(cliVersion, "-v, --version", "print the CLI version")
    .option("--json", "print exactly one JSON document on stdout (errors too); progress goes to stderr")
    .option("--server <url>", "server URL (default: LORE_SERVER, then the profile's, then http://127.0.0.1:8787)")
    .option("--profile <name>", "saved profile to use (default: LORE_PROFILE, then \"default\")")
    .option("--no-color", "disable colors")
    .showSuggestionAfterError()
    // Errors are reported by lore.ts in the documented format (and as JSON with --json), never by commander.
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .addHelpText("after", `\n${environmentHelp}\n\n${exitCodeHelp}\n\nDocumentation: docs/cli.md`)
  for (const module of commandModules) module.register(program)
  return program
}
