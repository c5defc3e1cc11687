import { defineGroup } from "../../../command"

export default defineGroup({
  description: "SCIM provisioning: connections for identity providers (Okta, Entra ID, ...) and their tokens",
  examples: [
    "lore admin provisioning add okta --provider okta",
    "lore admin provisioning enable okta",
    "lore admin provisioning issue okta",
    "lore admin provisioning rotate okta <credential-id> --overlap-hours 24"
  ]
})
