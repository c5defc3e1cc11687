import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { connectorView, findConnector, intervalSeconds, kindOf, permissionSettings, type SourceConfigFlags, sourceConfigFrom, withKind, withSourceConfig } from "../../views/connectors"

export default defineCommand({
  description: "change a connection's space, trust, settings or schedule; what is not given keeps its value",
  examples: ["lore connectors edit crm --space sales", "lore connectors edit crm --untrust --json", "lore connectors edit handbook --kind WEB --set maxPages=500 --every 1d"],
  configure: (command) =>
    withSourceConfig(withKind(command.argument("<key>", "the connection's key")))
      .option("--space <space>", "the knowledge space (key or id) its documents go to")
      .option("--trust", "trust the connection's identities")
      .option("--untrust", "stop trusting the connection's identities")
      .option("--description <text>", "a description kept in the connection's config"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const flags = command.opts<{ space?: string; trust?: boolean; untrust?: boolean } & SourceConfigFlags>()
    if (flags.trust && flags.untrust) throw usageError("pass --trust or --untrust, not both")
    const changesConfig = flags.description !== undefined || flags.config !== undefined || (flags.set ?? []).length > 0
    if (!flags.space && !flags.trust && !flags.untrust && !changesConfig && flags.every === undefined && flags.permissionsEvery === undefined && flags.permissionMaxAge === undefined) {
      throw usageError("nothing to change: pass --space, --trust, --untrust, --config, --set, --every, --permissions-every, --permission-max-age or --description")
    }
    const permissions = permissionSettings(flags)
    const interval = flags.every === undefined ? undefined : intervalSeconds(flags.every)
    const kind = kindOf(command)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Saving ${kind} connection ${key}`,
      run: async () => {
        const current = await findConnector(directory.lore, kind, key)
        const knowledgeSpaceId = flags.space ? (await directory.space(flags.space)).id : current.knowledgeSpaceId
        return directory.lore.admin.connectors.put(kind, key, {
          knowledgeSpaceId,
          sourceConfig: sourceConfigFrom(flags, current.sourceConfig),
          contentCrawlIntervalSeconds: interval ?? current.contentCrawlIntervalSeconds,
          crawlEnabled: interval === undefined ? current.crawlEnabled : interval > 0,
          identityTrust: flags.trust ? "TRUSTED" : flags.untrust ? "UNTRUSTED" : current.identityTrust,
          permissionSyncIntervalSeconds: current.permissionSyncIntervalSeconds,
          permissionMaxAgeSeconds: current.permissionMaxAgeSeconds,
          ...permissions
        })
      },
      view: (c) => connectorView(c, `Saved ${c.sourceSystem} connection ${c.sourceConnectionKey}`)
    })
  }
})
