import type { Command } from "commander"
import type { CommandModule } from "../command"
import { registerAiCommands } from "../aiCommands"
import { registerAuditCommand } from "./adminAudit"
import { registerInvitationCommands } from "./adminInvitations"
import { registerSpaceCommands } from "./adminSpaces"
import { registerUserCommands } from "./adminUsers"

/**
 * `lore admin ...`: the administration endpoints (/api/admin), one file per area. Each needs the
 * matching permission; without it the server answers 403 and the command exits 4.
 */
export const adminCommand: CommandModule = {
  register: (program: Command) => {
    const admin = program
      .command("admin")
      .description("administer the organization: users, departments, roles, invitations, knowledge spaces, grants, audit")
    registerUserCommands(admin)
    registerInvitationCommands(admin)
    registerSpaceCommands(admin)
    registerAuditCommand(admin)
    registerAiCommands(admin)
  }
}
