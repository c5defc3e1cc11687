import { defineGroup } from "../../command"

export default defineGroup({
  description: "why a user can or cannot reach something (administrators)",
  helpGroup: "Administration",
  examples: ["lore access explain --user ada@example.com --space general", "lore access explain --user ada@example.com --source <sourceId> --relation contributor"]
})
