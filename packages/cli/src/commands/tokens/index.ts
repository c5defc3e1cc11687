import { defineGroup } from "../../command"

export default defineGroup({
  description: "manage your personal access tokens ('lore tokens' alone lists them)",
  helpGroup: "Getting started",
  examples: ["lore tokens", "lore tokens create \"ci pipeline\" --expires-in-days 30", "lore tokens revoke <tokenId>"]
})
