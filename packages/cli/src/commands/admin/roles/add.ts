import { platformRoleValues } from "@lore/sdk"
import { Directory, parseOneOf } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"

export default defineCommand({
  description: "give a user a platform role",
  examples: ["lore admin roles add AUDITOR ada@example.com", "lore admin roles add knowledge-admin <userId>"],
  configure: (command) => command.argument("<role>", platformRoleValues.join(", ")).argument("<user>", "email or user id"),
  run: async (runtime, command) => {
    const [rawRole, userRef] = command.processedArgs as [string, string]
    const role = parseOneOf(platformRoleValues, rawRole, "platform role")
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Adding ${role}`,
      run: async () => {
        const userId = await directory.userId(userRef)
        await directory.lore.admin.roles.addMember(role, userId)
        return { role, userId, added: true as const }
      },
      view: () => [{ kind: "message", tone: "success", text: `${userRef} now holds ${role}` }]
    })
  }
})
