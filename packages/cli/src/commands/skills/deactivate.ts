import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { activationView } from "../../views/skills"

export default defineCommand({
  description: "turn a skill off for yourself",
  examples: ["lore skills deactivate docs/pdf-tools"],
  configure: (command) => command.argument("<skill>", "the skill's id or namespace/slug"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Deactivating ${ref}",
      run: async () => lore.assets.skills.setActivation(await requireAsset(lore, ref), false),
      view: activationView(ref)
    })
  }
})
