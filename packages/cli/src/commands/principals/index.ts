import { defineGroup } from "../../command"

export default defineGroup({
  description: "source principals: the users and groups seen in connectors' ACLs, and their mapping to Lore users",
  helpGroup: "Administration",
  examples: ["lore principals list", "lore principals map ann@corp.example ann@example.com --connection crm", "lore principals unmap <principal-id>"]
})
