import { defineGroup } from "../../../command"

export default defineGroup({
  description: "departments and their managers ('lore admin departments' alone lists them)",
  examples: ["lore admin departments", "lore admin departments create Engineering", "lore admin departments managers add Engineering ada@example.com"]
})
