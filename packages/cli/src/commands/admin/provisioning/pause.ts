import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { connectionView, findConnection } from "../../../views/provisioning"

export default defineCommand({
  description: "set a connection's state to PAUSED",
  examples: ["lore admin provisioning pause okta"],
  configure: (command) => command.argument("<connection>", "the connection's alias or id"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Setting the connection's state",
      run: async () => {
        const connection = await findConnection(lore, ref)
        return lore.admin.provisioning.setState(connection.id, "PAUSED", connection.version)
      },
      view: (c) => connectionView(c, `Connection ${c.alias} is now ${c.operationalState}`)
    })
  }
})
