import { Directory, nonEmpty } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { departmentView } from "../../../views/users"

export default defineCommand({
  description: "rename a department",
  examples: ["lore admin departments rename Ops Operations", "lore admin departments rename <departmentId> \"Platform Engineering\""],
  configure: (command) => command.argument("<department>", "department id or current name").argument("<new-name>", "the new name"),
  run: async (runtime, command) => {
    const [departmentRef, rawName] = command.processedArgs as [string, string]
    const name = nonEmpty(rawName, "the new name")
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Renaming ${departmentRef}`,
      run: async () => directory.lore.admin.departments.rename(await directory.departmentId(departmentRef), name),
      view: (renamed) => departmentView(`Renamed ${departmentRef} to ${renamed.name}`, renamed)
    })
  }
})
