import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { grantsOf, grantsView } from "../../../views/grants"

export default defineCommand({
  description: "the grants on a knowledge space",
  examples: ["lore admin grants list general", "lore --json admin grants list eng | jq '.grants'"],
  configure: (command) => command.argument("<space>", "knowledge space id or key"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, { progress: `Loading the grants on ${ref}`, run: async () => grantsOf(await directory.space(ref)), view: grantsView })
  }
})
