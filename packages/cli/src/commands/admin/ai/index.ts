import { defineGroup } from "../../../command"

export default defineGroup({
  description: "AI: provider presets, gateways and their API keys, which workload runs on which model, index settings",
  examples: ["lore admin ai gateways", "lore admin ai routes set assistant-chat --gateway openai --model gpt-4o-mini", "lore admin ai index-settings"]
})
