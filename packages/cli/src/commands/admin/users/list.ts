import { type AdminUser } from "@lore/sdk"
import { type Labels, Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import type { View } from "../../../output/view"
import { clearanceLegend } from "../../../views/clearance"
import { activeCell, departmentCell, idCell, listCell } from "../../../views/users"

export interface UserList {
  readonly users: ReadonlyArray<AdminUser>
  readonly labels: Labels
}

const usersView = ({ users, labels }: UserList): View => [
  {
    kind: "table",
    columns: [
      { header: "email" },
      { header: "name", fit: "text" },
      { header: "role" },
      { header: "clearance" },
      { header: "department", fit: "text" },
      { header: "status" },
      { header: "platform roles", fit: "text" },
      { header: "id", fit: "optional" }
    ],
    rows: users.map((user) => [
      user.email,
      user.name,
      user.role,
      user.clearance,
      departmentCell(labels, user.departmentId),
      activeCell(user.active),
      listCell(user.platformRoles),
      idCell(user.id)
    ]),
    empty: "No users."
  },
  ...clearanceLegend(users.map((user) => user.clearance))
]

export default defineCommand({
  description: "every user of the organization, with role, clearance (and what it reads), department and status",
  isDefault: true,
  examples: ["lore admin users list", "lore --json admin users | jq -r '.[] | select(.active | not) | .email'"],
  run: async (runtime) => {
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading users",
      run: async (): Promise<UserList> => ({ users: await directory.users(), labels: await directory.labels() }),
      view: usersView,
      json: (result) => result.users
    })
  }
})
