import type { Command } from "commander"
import { type CommandSpec, type GroupSpec, handler } from "./command"
import aiGroup from "./commands/admin/ai/index"
import indexSettings from "./commands/admin/ai/index-settings"
import providers from "./commands/admin/ai/providers"
import gatewaysGroup from "./commands/admin/ai/gateways/index"
import gatewaysAdd from "./commands/admin/ai/gateways/add"
import gatewaysCredential from "./commands/admin/ai/gateways/credential"
import gatewaysList from "./commands/admin/ai/gateways/list"
import gatewaysModels from "./commands/admin/ai/gateways/models"
import gatewaysRm from "./commands/admin/ai/gateways/rm"
import gatewaysTest from "./commands/admin/ai/gateways/test"
import gatewaysUpdate from "./commands/admin/ai/gateways/update"
import routesGroup from "./commands/admin/ai/routes/index"
import routesList from "./commands/admin/ai/routes/list"
import routesReset from "./commands/admin/ai/routes/reset"
import routesSet from "./commands/admin/ai/routes/set"

/**
 * Mounts `lore admin ai ...` from its one-file-per-command folder (commands/admin/ai/). The CLI
 * restructuring finds those files by themselves; when it lands, this file and its one call go.
 */
const tree: ReadonlyArray<readonly [string, CommandSpec | GroupSpec]> = [
  ["ai", aiGroup],
  ["ai/gateways", gatewaysGroup],
  ["ai/gateways/add", gatewaysAdd],
  ["ai/gateways/credential", gatewaysCredential],
  ["ai/gateways/list", gatewaysList],
  ["ai/gateways/models", gatewaysModels],
  ["ai/gateways/rm", gatewaysRm],
  ["ai/gateways/test", gatewaysTest],
  ["ai/gateways/update", gatewaysUpdate],
  ["ai/index-settings", indexSettings],
  ["ai/providers", providers],
  ["ai/routes", routesGroup],
  ["ai/routes/list", routesList],
  ["ai/routes/reset", routesReset],
  ["ai/routes/set", routesSet]
]

export const registerAiCommands = (admin: Command) => {
  const mounted = new Map<string, Command>([["", admin]])
  for (const [path, spec] of tree) {
    const slash = path.lastIndexOf("/")
    const parent = mounted.get(slash === -1 ? "" : path.slice(0, slash))!
    const command = parent
      .command(path.slice(slash + 1), spec.kind === "command" && spec.isDefault ? { isDefault: true } : {})
      .description(spec.description)
      .addHelpText("after", `\nExamples:\n${spec.examples.map((example) => `  ${example}`).join("\n")}${spec.kind === "command" && spec.notes ? `\n\n${spec.notes}` : ""}`)
    if (spec.kind === "command") {
      for (const alias of spec.aliases ?? []) command.alias(alias)
      spec.configure?.(command)
      command.action(handler(spec.run))
    }
    mounted.set(path, command)
  }
}
