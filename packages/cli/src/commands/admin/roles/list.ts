import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { styled } from "../../../output/view"
import { listCell, userCell } from "../../../views/users"

export default defineCommand({
  description: "every platform role and its members",
  isDefault: true,
  examples: ["lore admin roles list", "lore --json admin roles | jq '.roles'"],
  run: async (runtime) => {
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading roles",
      run: async () => {
        const [roles, labels] = await Promise.all([directory.lore.admin.roles.list(), directory.labels()])
        return { roles, labels }
      },
      view: ({ roles, labels }) => [
        {
          kind: "table",
          columns: [{ header: "role" }, { header: "members", fit: "text" }],
          rows: roles.roles.map((entry) => [entry.role, listCell(entry.assignees.map((id) => userCell(labels, id)))]),
          empty: "No roles."
        },
        { kind: "fields", fields: [["Policy version", styled(roles.policyVersion, "muted")]] }
      ],
      json: (result) => result.roles
    })
  }
})
