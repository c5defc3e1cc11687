import type { CommandModule } from "../command"
import { accessCommand } from "./access"
import { adminCommand } from "./admin"
import { catalogCommand } from "./catalog"
import { citeCommand } from "./cite"
import { invitationsCommand } from "./invitations"
import { loginCommand } from "./login"
import { searchCommand } from "./search"
import { serveCommand } from "./serve"
import { sourcesCommand } from "./sources"
import { statusCommand } from "./status"
import { tokensCommand } from "./tokens"
import { whoamiCommand } from "./whoami"

/** Every command group, in the order `lore --help` lists them. A new group is one file and one line here. */
export const commandModules: ReadonlyArray<CommandModule> = [serveCommand, loginCommand, whoamiCommand, statusCommand, tokensCommand, sourcesCommand, searchCommand, catalogCommand, citeCommand, invitationsCommand, adminCommand, accessCommand]
