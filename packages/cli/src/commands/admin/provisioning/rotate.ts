import { parseCount } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { findConnection, issuedView } from "../../../views/provisioning"

export default defineCommand({
  description: "replace a credential with a new token; the old one keeps working for the overlap (default 24 hours)",
  examples: ["lore admin provisioning rotate okta 3f0c...", "lore admin provisioning rotate okta 3f0c... --overlap-hours 1"],
  configure: (command) =>
    command
      .argument("<connection>", "the connection's alias or id")
      .argument("<credential>", "the credential's id (see 'lore admin provisioning credentials')")
      .option("--overlap-hours <hours>", "hours the old token keeps working, 0 to 720 (default 24)", parseCount(0, 720)),
  run: async (runtime, command) => {
    const [ref, credentialId] = command.processedArgs as [string, string]
    const flags = command.opts<{ overlapHours?: number }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Rotating the SCIM token",
      run: async () => lore.admin.provisioning.rotate((await findConnection(lore, ref)).id, credentialId,
        flags.overlapHours === undefined ? {} : { overlapSeconds: flags.overlapHours * 3600 }),
      view: (issued) => issuedView(issued, "Rotated: a new SCIM token")
    })
  }
})
