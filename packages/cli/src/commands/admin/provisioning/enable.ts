import { connectionStateCommand } from "../../../provisioningState"

export default connectionStateCommand("ENABLED", {
  examples: ["lore admin provisioning enable okta", "lore admin provisioning enable okta --link-existing-users"],
  configure: (command) =>
    command
      .option("--link-existing-users", "also let SCIM take over existing users with the same email (never administrators)")
      .option("--no-link-existing-users", "also stop SCIM from taking over existing users (409 uniqueness instead)"),
  body: ({ linkExistingUsers }) => (typeof linkExistingUsers === "boolean" ? { linkExistingUsers } : {})
})
