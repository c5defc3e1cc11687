import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { readConfigFlag, withConfig } from "../../connectorConfig"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { connectorView, findConnector, kindOf, withKind } from "../../views/connectors"

export default defineCommand({
  description: "change a connection's space, trust, description or config settings; what is not given keeps its value",
  examples: ["lore connectors edit crm --space sales", "lore connectors edit crm --untrust --json"],
  configure: (command) =>
    withConfig(withKind(command.argument("<key>", "the connection's key")))
      .option("--space <space>", "the knowledge space (key or id) its documents go to")
      .option("--trust", "trust the connection's identities")
      .option("--untrust", "stop trusting the connection's identities")
      .option("--description <text>", "a description kept in the connection's config"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const flags = command.opts<{ space?: string; trust?: boolean; untrust?: boolean; description?: string; config?: string }>()
    const config = readConfigFlag(flags.config)
    if (flags.trust && flags.untrust) throw usageError("pass --trust or --untrust, not both")
    if (!flags.space && !flags.trust && !flags.untrust && flags.description === undefined && flags.config === undefined) {
      throw usageError("nothing to change: pass --space, --trust, --untrust, --description or --config")
    }
    const kind = kindOf(command)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Saving ${kind} connection ${key}`,
      run: async () => {
        const current = await findConnector(directory.lore, kind, key)
        const knowledgeSpaceId = flags.space ? (await directory.space(flags.space)).id : current.knowledgeSpaceId
        return directory.lore.admin.connectors.put(kind, key, {
          knowledgeSpaceId,
          // --config settings replace theirs; the others keep their values.
          sourceConfig: { ...current.sourceConfig, ...config, ...(flags.description === undefined ? {} : { description: flags.description }) },
          contentCrawlIntervalSeconds: current.contentCrawlIntervalSeconds,
          crawlEnabled: current.crawlEnabled,
          identityTrust: flags.trust ? "TRUSTED" : flags.untrust ? "UNTRUSTED" : current.identityTrust
        })
      },
      view: (c) => connectorView(c, `Saved ${c.sourceSystem} connection ${c.sourceConnectionKey}`)
    })
  }
})
