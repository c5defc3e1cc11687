import type { CommandModule } from "../command"
import { loginCommand } from "./login"
import { serveCommand } from "./serve"
import { statusCommand } from "./status"
import { tokensCommand } from "./tokens"
import { whoamiCommand } from "./whoami"

/** Every command group, in the order `lore --help` lists them. A new group is one file and one line here. */
export const commandModules: ReadonlyArray<CommandModule> = [serveCommand, loginCommand, whoamiCommand, statusCommand, tokensCommand]
