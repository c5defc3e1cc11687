import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { activationView } from "../../views/skills"

export default defineCommand({
  description: "turn a released skill on for yourself",
  examples: ["lore skills activate docs/pdf-tools"],
  configure: (command) => command.argument("<skill>", "the skill's id or namespace/slug"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Activating ${ref}",
      run: async () => lore.assets.skills.setActivation(await requireAsset(lore, ref), true),
      view: activationView(ref)
    })
  }
})
