import { defineGroup } from "../../../command"

export default defineGroup({
  description: "invite people; each invitation is a one-time code ('lore admin invitations' alone lists them)",
  examples: ["lore admin invitations", "lore admin invitations create --email ada@example.com --department Engineering", "lore admin invitations revoke <invitationId>"]
})
