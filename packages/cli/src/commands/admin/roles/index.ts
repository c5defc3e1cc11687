import { platformRoleValues } from "@lore/sdk"
import { defineGroup } from "../../../command"

export default defineGroup({
  description: `platform roles (${platformRoleValues.join(", ")}) and who holds them ('lore admin roles' alone lists them)`,
  examples: ["lore admin roles", "lore admin roles add AUDITOR ada@example.com", "lore admin roles rm knowledge-admin ada@example.com"]
})
