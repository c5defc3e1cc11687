import { defineCommand } from "../command"
import { present } from "../output/present"
import { meFields } from "../views/users"

export default defineCommand({
  description: "show the user the current token belongs to",
  helpGroup: "Getting started",
  examples: ["lore whoami", "lore --json whoami | jq -r .email"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Asking the server who you are", run: () => lore.me.get(), view: (me) => [{ kind: "fields", fields: meFields(me) }] })
  }
})
