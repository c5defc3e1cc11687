import { defineGroup } from "../../../command"

export default defineGroup({
  description: "knowledge spaces ('lore admin spaces' alone lists them; 'lore admin grants' says who may use them)",
  examples: ["lore admin spaces", "lore admin spaces create eng-handbook --name \"Engineering handbook\" --department Engineering", "lore admin spaces rm scratch --yes"]
})
