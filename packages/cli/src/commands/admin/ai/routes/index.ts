import { defineGroup } from "../../../../command"

export default defineGroup({
  description: "which gateway and model each workload uses ('lore admin ai routes' alone lists them)",
  examples: ["lore admin ai routes", "lore admin ai routes set assistant-chat --gateway openai --model gpt-4o-mini", "lore admin ai routes reset assistant-chat"]
})
