import { defineGroup } from "../../command"

export default defineGroup({
  description: "source connections' identity trust: whether mapped principals of a connection grant access",
  helpGroup: "Administration",
  examples: ["lore connections trust crm", "lore connections distrust crm --kind PUSH"]
})
