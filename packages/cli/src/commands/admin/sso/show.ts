import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { ssoView } from "../../../views/sso"

export default defineCommand({
  description: "the single sign-on settings (never the client secret)",
  isDefault: true,
  examples: ["lore admin sso show", "lore --json admin sso"],
  run: async (runtime) => {
    const lore = runtime.client({ requireToken: true })
    await present(runtime, { progress: "Loading single sign-on settings", run: () => lore.admin.sso.get(), view: (s) => ssoView(s) })
  }
})
