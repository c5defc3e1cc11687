import type { Command } from "commander"
import { type CommandModule, handler, type Me } from "../command"
import type { LoreClient } from "../context"
import { present } from "../output/render"
import { type Cell, styled, type View } from "../output/view"

/** The caller as the server sees them (`GET /api/me`). */
export const whoami = (lore: LoreClient): Promise<Me> => lore.me.get()

export const userFields = (me: Me): Array<readonly [string, Cell]> => [
  ["Name", styled(me.name, "accent")],
  ["Email", me.email],
  ["Role", me.role],
  ["Clearance", me.clearance],
  ["Department", me.departmentName],
  ["Platform roles", me.platformRoles.length > 0 ? me.platformRoles.join(", ") : "-"],
  ["User id", styled(me.userId, "muted")],
  ["Organization id", styled(me.organizationId, "muted")]
]

export const whoamiView = (me: Me): View => [{ kind: "fields", fields: userFields(me) }]

export const whoamiCommand: CommandModule = {
  register: (program: Command) => {
    program
      .command("whoami")
      .description("show the user the current token belongs to")
      .action(
        handler(async (runtime) => {
          const lore = runtime.client({ requireToken: true })
          await present(runtime, { progress: "Asking the server who you are", run: () => whoami(lore), view: whoamiView })
        })
      )
  }
}
