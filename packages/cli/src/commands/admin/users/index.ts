import { defineGroup } from "../../../command"

export default defineGroup({
  description: "list, show and change users, see their permissions ('lore admin users' alone lists them)",
  examples: ["lore admin users", "lore admin users show ada@example.com", "lore admin users update ada@example.com --clearance CONFIDENTIAL"]
})
