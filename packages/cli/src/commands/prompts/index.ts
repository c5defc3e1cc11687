import { defineGroup } from "../../command"

export default defineGroup({
  description: "use released prompt templates: render them with your variables",
  helpGroup: "Knowledge",
  examples: ["lore prompts render ops/incident-summary --var incident_id=INC-42 --var severity=SEV2"]
})
