import { defineGroup } from "../../command"

export default defineGroup({
  description: "upload documents and manage them (knowledge sources); 'lore sources' alone lists them",
  helpGroup: "Knowledge",
  examples: ["lore sources add handbook.md --space general --classification INTERNAL", "lore sources", "lore sources show <sourceId>"]
})
