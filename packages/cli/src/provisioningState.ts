import type { Command } from "commander"
import { defineCommand, type Examples } from "./command"
import { present } from "./output/present"
import { connectionView, findConnection } from "./views/provisioning"

type ConnectionState = "ENABLED" | "DISABLED" | "PAUSED"

/**
 * `lore admin provisioning enable|disable|pause <connection>`: one command each, one implementation. The
 * connection is found by alias or id, and its state set at the version just read (a concurrent change is a
 * 409 rather than a silent overwrite). `configure` adds a state's own options; `body` turns them into the
 * request's extra fields.
 */
export const connectionStateCommand = (
  state: ConnectionState,
  spec: {
    readonly examples: Examples
    readonly configure?: (command: Command) => Command
    readonly body?: (options: Record<string, unknown>) => { readonly linkExistingUsers?: boolean }
  }
) =>
  defineCommand({
    description: `set a connection's state to ${state}`,
    examples: spec.examples,
    configure: (command) => (spec.configure ?? ((c: Command) => c))(command.argument("<connection>", "the connection's alias or id")),
    run: async (runtime, command) => {
      const [ref] = command.processedArgs as [string]
      const body = spec.body?.(command.opts()) ?? {}
      const lore = runtime.client({ requireToken: true })
      await present(runtime, {
        progress: "Setting the connection's state",
        run: async () => {
          const connection = await findConnection(lore, ref)
          return lore.admin.provisioning.setState(connection.id, state, connection.version, body)
        },
        view: (c) => connectionView(c, `Connection ${c.alias} is now ${c.operationalState}`)
      })
    }
  })
