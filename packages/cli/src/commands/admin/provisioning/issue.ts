import { parseCount } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { findConnection, issuedView } from "../../../views/provisioning"

export default defineCommand({
  description: "issue a SCIM token for a connection; prints it once",
  examples: ["lore admin provisioning issue okta", "lore admin provisioning issue okta --no-groups --expires-in-days 90", "lore --json admin provisioning issue okta | jq -r .token"],
  configure: (command) =>
    command
      .argument("<connection>", "the connection's alias or id")
      .option("--no-users", "the token may not provision users")
      .option("--no-groups", "the token may not provision groups")
      .option("--expires-in-days <days>", "days until the token expires, 1 to 3650 (default 365)", parseCount(1, 3650)),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ users: boolean; groups: boolean; expiresInDays?: number }>()
    if (!flags.users && !flags.groups) throw usageError("a token needs users or groups: leave out --no-users or --no-groups")
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Issuing a SCIM token",
      run: async () => lore.admin.provisioning.issue((await findConnection(lore, ref)).id, {
        usersScope: flags.users, groupsScope: flags.groups, ...(flags.expiresInDays ? { expiresInDays: flags.expiresInDays } : {})
      }),
      view: (issued) => issuedView(issued, "Issued a SCIM token")
    })
  }
})
