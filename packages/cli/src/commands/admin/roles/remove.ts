import { platformRoleValues } from "@lore/sdk"
import { Directory, parseOneOf } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"

export default defineCommand({
  description: "take a platform role from a user",
  aliases: ["rm"],
  examples: ["lore admin roles remove AUDITOR ada@example.com"],
  configure: (command) => command.argument("<role>", platformRoleValues.join(", ")).argument("<user>", "email or user id"),
  run: async (runtime, command) => {
    const [rawRole, userRef] = command.processedArgs as [string, string]
    const role = parseOneOf(platformRoleValues, rawRole, "platform role")
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Removing ${role}`,
      run: async () => {
        const userId = await directory.userId(userRef)
        await directory.lore.admin.roles.removeMember(role, userId)
        return { role, userId, removed: true as const }
      },
      view: () => [{ kind: "message", tone: "success", text: `${userRef} no longer holds ${role}` }]
    })
  }
})
