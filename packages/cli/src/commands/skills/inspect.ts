import { LoreApiError } from "@lore/sdk"
import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { packageProblems, packSkill } from "../../skillPackages"
import { skillInspectionView } from "../../views/skills"

export default defineCommand({
  description: "check a skill folder or zip against the Agent Skills format and Lore's package limits (stores nothing)",
  examples: ["lore skills inspect ./skills/pdf-tools", "lore --json skills inspect pdf-tools.zip"],
  notes: "Exits 0 for a valid package; 6 with every broken rule listed (code, file or field, message) otherwise.",
  configure: (command) => command.argument("<path>", "a skill folder (holding SKILL.md) or a .zip"),
  run: async (runtime, command) => {
    const [path] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Inspecting ${path}`,
      run: async () => {
        const packed = await packSkill(path)
        try {
          return await lore.assets.skills.inspect({ file: new Blob([packed.bytes as Uint8Array<ArrayBuffer>]), fileName: packed.fileName, size: packed.bytes.length })
        } catch (error) {
          if (LoreApiError.is(error) && error.code === "INVALID_SKILL_PACKAGE") throw packageProblems(error)
          throw error
        }
      },
      view: skillInspectionView
    })
  }
})
