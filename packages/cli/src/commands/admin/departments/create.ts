import { Directory, nonEmpty } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { departmentView } from "../../../views/users"

export default defineCommand({
  description: "create a department",
  examples: ["lore admin departments create Engineering", "lore --json admin departments create \"Customer Support\" | jq -r .id"],
  configure: (command) => command.argument("<name>", "the department's name (unique)"),
  run: async (runtime, command) => {
    const [rawName] = command.processedArgs as [string]
    const name = nonEmpty(rawName, "the department name")
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Creating department ${name}`,
      run: () => directory.lore.admin.departments.create(name),
      view: (created) => departmentView(`Created department ${created.name}`, created)
    })
  }
})
