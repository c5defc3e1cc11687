import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { formatTime, styled } from "../../../output/view"

export default defineCommand({
  description: "every permission and whether the user has it",
  examples: ["lore admin users permissions ada@example.com", "lore --json admin users permissions ada@example.com | jq '.permissions'"],
  configure: (command) => command.argument("<user>", "email or user id"),
  run: async (runtime, command) => {
    const [userRef] = command.processedArgs as [string]
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Evaluating the permissions of ${userRef}`,
      run: async () => {
        const user = await directory.user(userRef)
        return { user, permissions: await directory.lore.admin.users.permissions(user.id) }
      },
      view: ({ user, permissions }) => [
        { kind: "heading", text: `Permissions of ${user.name} <${user.email}>` },
        {
          kind: "table",
          columns: [{ header: "permission" }, { header: "state" }],
          rows: Object.entries(permissions.permissions)
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([name, state]) => [name, styled(state, state === "ALLOWED" ? "success" : "muted")]),
          empty: "No permissions."
        },
        { kind: "fields", fields: [["Evaluated", formatTime(permissions.evaluatedAt)]] }
      ],
      json: (result) => result.permissions
    })
  }
})
