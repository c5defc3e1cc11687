import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { connectionView, findConnection } from "../../../views/provisioning"

export default defineCommand({
  description: "set a connection's state to ENABLED",
  examples: ["lore admin provisioning enable okta", "lore admin provisioning enable okta --link-existing-users"],
  configure: (command) =>
    command
      .argument("<connection>", "the connection's alias or id")
      .option("--link-existing-users", "also let SCIM take over existing users with the same email (never administrators)")
      .option("--no-link-existing-users", "also stop SCIM from taking over existing users (409 uniqueness instead)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const { linkExistingUsers } = command.opts<{ linkExistingUsers?: boolean }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Setting the connection's state",
      run: async () => {
        const connection = await findConnection(lore, ref)
        return lore.admin.provisioning.setState(connection.id, "ENABLED", connection.version, linkExistingUsers === undefined ? {} : { linkExistingUsers })
      },
      view: (c) => connectionView(c, `Connection ${c.alias} is now ${c.operationalState}`)
    })
  }
})
