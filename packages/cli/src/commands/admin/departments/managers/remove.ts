import { Directory } from "../../../../arguments"
import { defineCommand } from "../../../../command"
import { present } from "../../../../output/present"
import { departmentView } from "../../../../views/users"

export default defineCommand({
  description: "stop a user managing the department",
  aliases: ["rm"],
  examples: ["lore admin departments managers remove Engineering ada@example.com"],
  configure: (command) => command.argument("<department>", "department id or name").argument("<user>", "email or user id"),
  run: async (runtime, command) => {
    const [departmentRef, userRef] = command.processedArgs as [string, string]
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Removing ${userRef}`,
      run: async () => {
        const [departmentId, userId] = await Promise.all([directory.departmentId(departmentRef), directory.userId(userRef)])
        return directory.lore.admin.departments.removeManager(departmentId, userId)
      },
      view: (department) => departmentView(`${userRef} no longer manages ${department.name}`, department)
    })
  }
})
