import { defineGroup } from "../../command"

/**
 * `lore admin ...`: the administration endpoints (/api/admin). Each needs the matching permission;
 * without it the server answers 403 and the command exits 4.
 */
export default defineGroup({
  description: "administer the organization: users, departments, roles, invitations, knowledge spaces, grants, audit",
  helpGroup: "Administration",
  examples: ["lore admin users", "lore admin invitations create --email ada@example.com --department Engineering", "lore admin audit --since 24h"]
})
