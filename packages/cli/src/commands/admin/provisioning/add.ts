import type { Clearance, ProvisioningProviderProfile, UserRole } from "@lore/sdk"
import { clearanceValues, provisioningProviderProfileValues, userRoleValues } from "@lore/sdk"
import { oneOf } from "../../../arguments"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { connectionView } from "../../../views/provisioning"

export default defineCommand({
  description: "add a provisioning connection (it starts disabled: enable it, then issue a token)",
  examples: ["lore admin provisioning add okta --provider okta", "lore admin provisioning add entra --provider entra-id --no-groups --clearance confidential"],
  configure: (command) =>
    command
      .argument("<alias>", "a name for the connection (e.g. okta)")
      .option("--provider <profile>", provisioningProviderProfileValues.join(", "), oneOf(provisioningProviderProfileValues))
      .option("--no-users", "do not provision users")
      .option("--no-groups", "do not provision groups")
      .option("--role <role>", `the role of provisioned users: ${userRoleValues.join(", ")} (default EMPLOYEE)`, oneOf(userRoleValues))
      .option("--clearance <clearance>", `the clearance of provisioned users: ${clearanceValues.join(", ")} (default STANDARD)`, oneOf(clearanceValues))
      .option("--link-existing-users", "let SCIM take over existing users with the same email (never administrators; default: 409 uniqueness)"),
  run: async (runtime, command) => {
    const [alias] = command.processedArgs as [string]
    const flags = command.opts<{ provider?: ProvisioningProviderProfile; users: boolean; groups: boolean; role?: UserRole; clearance?: Clearance; linkExistingUsers?: boolean }>()
    if (!flags.provider) throw usageError(`missing --provider: pass --provider ${provisioningProviderProfileValues.join("|")}`)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Adding provisioning connection ${alias}`,
      run: () => lore.admin.provisioning.createConnection({
        alias, providerProfile: flags.provider!, usersEnabled: flags.users, groupsEnabled: flags.groups,
        ...(flags.role ? { defaultRole: flags.role } : {}), ...(flags.clearance ? { defaultClearance: flags.clearance } : {}),
        ...(flags.linkExistingUsers ? { linkExistingUsers: true } : {})
      }),
      view: (c) => [...connectionView(c, `Added provisioning connection ${c.alias} (disabled)`), { kind: "hint", text: `Next: lore admin provisioning enable ${c.alias} && lore admin provisioning issue ${c.alias}` }]
    })
  }
})
