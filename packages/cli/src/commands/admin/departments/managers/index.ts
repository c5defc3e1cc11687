import { defineGroup } from "../../../../command"

export default defineGroup({
  description: "add or remove a department's managers",
  examples: ["lore admin departments managers add Engineering ada@example.com", "lore admin departments managers rm Engineering ada@example.com"]
})
