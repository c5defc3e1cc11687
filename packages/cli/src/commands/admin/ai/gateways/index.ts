import { defineGroup } from "../../../../command"

export default defineGroup({
  description: "AI gateways ('lore admin ai gateways' alone lists them); LOCAL is built in and always present",
  examples: ["lore admin ai gateways", "lore admin ai gateways add openai --preset openai --name OpenAI", "printf %s \"$OPENAI_API_KEY\" | lore admin ai gateways credential openai --stdin"]
})
