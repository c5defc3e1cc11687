import { defineGroup } from "../../command"

export default defineGroup({
  description: "connectors: connections that bring documents from other systems (PUSH, ...) with their source ACLs",
  helpGroup: "Administration",
  examples: [
    "lore connectors kinds",
    "lore connectors add --kind PUSH --key crm --space sales --trust",
    "printf %s \"$SECRET\" | lore connectors credential crm --credential-stdin",
    "lore connectors activity crm"
  ]
})
