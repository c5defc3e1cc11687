import { defineGroup } from "../../command"

export default defineGroup({
  description: "your private assistant files: upload documents for chat, list and delete them; 'lore files' alone lists them",
  helpGroup: "Knowledge",
  examples: ["lore files upload notes.pdf", "lore files", "lore files rm <fileId>"]
})
