import { defineGroup } from "../../command"

export default defineGroup({
  description: "use released prompt templates: render or run them with your variables",
  helpGroup: "Knowledge",
  examples: ["lore prompts render ops/incident-summary --var incident_id=INC-42 --var severity=SEV2", "lore prompts run ops/incident-summary --vars-file vars.yaml"]
})
