import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { credentialsView, findConnection } from "../../../views/provisioning"

export default defineCommand({
  description: "a connection's credentials (never their tokens), revoked and rotated ones included",
  examples: ["lore admin provisioning credentials okta"],
  configure: (command) => command.argument("<connection>", "the connection's alias or id"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Loading credentials",
      run: async () => lore.admin.provisioning.credentials((await findConnection(lore, ref)).id),
      view: credentialsView
    })
  }
})
