import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { readConfigFlag, withConfig } from "../../connectorConfig"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { connectorView, kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "add (or replace) a connection: its kind, key and the knowledge space its documents go to",
  examples: [
    "lore connectors add --kind PUSH --key crm --space sales --trust",
    "lore connectors add --key wiki --space docs --json",
    "lore connectors add --kind WEB --key handbook --space docs --config '{\"baseUrl\":\"https://intranet.example.com/handbook/\"}'"
  ],
  configure: (command) =>
    withConfig(withKind(command))
      .option("--key <key>", "the connection's key (lowercase, unique per kind)")
      .option("--space <space>", "the knowledge space (key or id) its documents go to")
      .option("--trust", "trust the connection's identities: mapped principals grant access (default: untrusted)")
      .option("--description <text>", "a description kept in the connection's config"),
  run: async (runtime, command) => {
    const flags = command.opts<{ key?: string; space?: string; trust?: boolean; description?: string; config?: string }>()
    const config = readConfigFlag(flags.config)
    if (!flags.key) throw usageError("missing --key: pass --key <connection-key>")
    if (!flags.space) throw usageError("missing --space: pass --space <space key or id>")
    const kind = kindOf(command)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Adding ${kind} connection ${flags.key}`,
      run: async () => {
        const space = await directory.space(flags.space!)
        return directory.lore.admin.connectors.put(kind, flags.key!, {
          knowledgeSpaceId: space.id,
          sourceConfig: { ...config, ...(flags.description ? { description: flags.description } : {}) },
          identityTrust: flags.trust ? "TRUSTED" : "UNTRUSTED"
        })
      },
      view: (c) => [
        ...connectorView(c, `Saved ${c.sourceSystem} connection ${c.sourceConnectionKey}`),
        ...(c.credentialSet ? [] : [{ kind: "hint" as const, text: `Next: printf %s "$SECRET" | lore connectors credential ${c.sourceConnectionKey} --kind ${c.sourceSystem} --credential-stdin` }])
      ]
    })
  }
})
