import { defineGroup } from "../../../command"

export default defineGroup({
  description: "who may view, contribute to, curate or manage a knowledge space",
  examples: ["lore admin grants list general", "lore admin grants add eng --relation viewer --kind ORGANIZATION", "lore admin grants rm eng --relation viewer --kind ORGANIZATION"]
})
