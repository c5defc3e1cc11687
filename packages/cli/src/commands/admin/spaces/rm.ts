import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { CliError, ExitCode } from "../../../errors"
import { ask, present, requireConfirmation } from "../../../output/present"

export default defineCommand({
  description: "delete a knowledge space and everything in it (asks you to type its key; --yes in scripts)",
  aliases: ["remove"],
  examples: ["lore admin spaces rm scratch          # asks you to type 'scratch'", "lore admin spaces rm scratch --yes    # in scripts and CI"],
  configure: (command) => command.argument("<space>", "knowledge space id or key").option("-y, --yes", "delete without asking"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const { yes } = command.opts<{ yes?: boolean }>()
    if (!yes) requireConfirmation(runtime, `delete knowledge space ${ref}`)
    const directory = new Directory(runtime.client({ requireToken: true }))
    const space = await directory.space(ref)
    if (!yes) {
      // Typing the key, not just "y": deleting a space deletes every document in it.
      const answer = await ask(runtime, { label: `Delete knowledge space ${space.name} (${space.key}) and everything in it? Type its key to confirm:`, flag: "--yes" }).catch(() => "")
      if (answer !== space.key) throw new CliError(ExitCode.unexpected, "CANCELLED", `not confirmed; knowledge space ${space.key} was not deleted`)
    }
    await present(runtime, {
      progress: `Deleting ${space.key}`,
      run: async () => {
        await directory.lore.admin.spaces.remove(space.id)
        return { id: space.id, key: space.key, removed: true as const }
      },
      view: (result) => [{ kind: "message", tone: "success", text: `Deleted knowledge space ${result.key}` }]
    })
  }
})
