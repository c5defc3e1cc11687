import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { adminUserFields } from "../../../views/users"

export default defineCommand({
  description: "one user: role, clearance and the classifications it reads, department, status, platform roles",
  examples: ["lore admin users show ada@example.com", "lore --json admin users show <userId>"],
  configure: (command) => command.argument("<user>", "email or user id"),
  run: async (runtime, command) => {
    const [userRef] = command.processedArgs as [string]
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Loading ${userRef}`,
      run: async () => ({ user: await directory.user(userRef), labels: await directory.labels() }),
      view: ({ user, labels }) => [{ kind: "fields", fields: adminUserFields(user, labels) }],
      json: (result) => result.user
    })
  }
})
