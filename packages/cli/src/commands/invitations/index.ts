import { defineGroup } from "../../command"

export default defineGroup({
  description: "accept an invitation to a Lore organization",
  helpGroup: "Getting started",
  examples: ["lore invitations accept lore_inv_... --server https://lore.example.com"]
})
