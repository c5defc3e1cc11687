import { CommanderError } from "commander"
import { helpHint } from "./command"
import { ExitCode, toCliError, usageError } from "./errors"
import { reportError } from "./output/present"
import { CommandUsageError, createProgram } from "./program"

/** Runs one invocation and returns its exit code; every failure is reported here, once. */
export const main = async (argv: ReadonlyArray<string>): Promise<number> => {
  const json = argv.slice(2).includes("--json")
  const program = createProgram()
  try {
    await program.parseAsync([...argv])
    return ExitCode.ok
  } catch (thrown) {
    const [error, command] = thrown instanceof CommandUsageError ? [thrown.error, thrown.command] : [thrown, program]
    if (error instanceof CommanderError) {
      // --help and --version exit 0; help shown because a subcommand is missing is a usage error.
      if (error.code === "commander.helpDisplayed" || error.code === "commander.version") return ExitCode.ok
      if (error.code === "commander.help") return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage
      // commander's message is "error: <what>" plus, sometimes, a "(Did you mean ...?)" line; the hint
      // names the help of the command that refused (`lore admin users update --help`), not the program's.
      const [first = "", ...rest] = error.message.replace(/^error: /, "").split("\n")
      reportError(usageError(first, [...rest, helpHint(command)].join("\n")), json)
      return ExitCode.usage
    }
    const failure = toCliError(error)
    reportError(failure, json)
    return failure.exitCode
  }
}

// A reader that stops early (`lore sources list | head`) closes the pipe: stop quietly, as other tools do.
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(ExitCode.ok)
    throw error
  })
}

process.exitCode = await main(process.argv)
