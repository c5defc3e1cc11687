import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { formatDate } from "../../../output/view"
import { idCell, listCell, userCell } from "../../../views/users"

export default defineCommand({
  description: "every department, with member counts and managers",
  isDefault: true,
  examples: ["lore admin departments list", "lore --json admin departments | jq -r '.[].name'"],
  run: async (runtime) => {
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading departments",
      run: async () => ({ departments: await directory.departments(), labels: await directory.labels() }),
      view: ({ departments, labels }) => [
        {
          kind: "table",
          columns: [{ header: "name", fit: "text" }, { header: "members", align: "right" }, { header: "managers", fit: "text" }, { header: "created", fit: "optional" }, { header: "id" }],
          rows: departments.map((department) => [
            department.name,
            String(department.memberCount),
            listCell(department.managerUserIds.map((id) => userCell(labels, id))),
            formatDate(department.createdAt),
            idCell(department.id)
          ]),
          empty: "No departments."
        }
      ],
      json: (result) => result.departments
    })
  }
})
