import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { confluenceConfig, confluenceCredential, type ConfluenceFlags, withConfluenceFlags } from "../../views/confluenceSetup"
import { sharePointConfig, sharePointCredential, type SharePointFlags, withSharePointFlags } from "../../views/sharepointSetup"
import { connectorView, intervalSeconds, kindOf, permissionSettings, type SourceConfigFlags, sourceConfigFrom, withCredentialInput, withKind, withSourceConfig } from "../../views/connectors"

export default defineCommand({
  description: "add (or replace) a connection: its kind, key and the knowledge space its documents go to",
  examples: [
    "lore connectors add --kind PUSH --key crm --space sales --trust",
    "lore connectors add --kind WEB --key handbook --space docs --set baseUrl=https://handbook.example.com/ --every 6h",
    "lore connectors add --kind GIT --key runbooks --space ops --config '{\"repository\":\"https://git.example.com/ops/runbooks.git\",\"branch\":\"main\"}'",
    "lore connectors add --kind CONFLUENCE --key wiki --space docs --trust --every 1h   # asks for the site, spaces and token on a terminal",
    "jq -n --rawfile c cert.pem --rawfile k key.pem '{certificatePem: $c, privateKeyPem: $k}' | lore connectors add --kind SHAREPOINT --key m365 --space docs --trust --tenant-id $TENANT --client-id $APP --sharepoint-host https://acme.sharepoint.com --sites https://acme.sharepoint.com/sites/eng --credential-stdin --every 1h",
    "printf %s \"$TOKEN\" | lore connectors add --kind CONFLUENCE --key wiki --space docs --deployment CLOUD --base-url https://acme.atlassian.net/wiki --spaces ENG,HR --email bot@acme.com --credential-stdin --every 1h --permissions-every 5m"
  ],
  notes: "The settings of each kind's sourceConfig are in docs/connectors.md; an invalid one is 422 (exit 6) naming the field.",
  configure: (command) =>
    withSharePointFlags(withConfluenceFlags(withCredentialInput(withSourceConfig(withKind(command)))))
      .option("--key <key>", "the connection's key (lowercase, unique per kind)")
      .option("--space <space>", "the knowledge space (key or id) its documents go to")
      .option("--trust", "trust the connection's identities: mapped principals grant access (default: untrusted)")
      .option("--description <text>", "a description kept in the connection's config"),
  run: async (runtime, command) => {
    const flags = command.opts<{ key?: string; space?: string; trust?: boolean } & SourceConfigFlags & ConfluenceFlags & SharePointFlags>()
    if (!flags.key) throw usageError("missing --key: pass --key <connection-key>")
    if (!flags.space) throw usageError("missing --space: pass --space <space key or id>")
    const kind = kindOf(command)
    let sourceConfig = sourceConfigFrom(flags, {})
    // Guided kinds: what their flags do not give is asked on a terminal (and named as a missing flag in CI).
    let credential: unknown
    if (kind === "CONFLUENCE") {
      sourceConfig = await confluenceConfig(runtime, flags, sourceConfig)
      credential = await confluenceCredential(runtime, flags, sourceConfig.deployment as string)
    } else if (kind === "SHAREPOINT") {
      sourceConfig = await sharePointConfig(runtime, flags, sourceConfig)
      credential = await sharePointCredential(runtime, flags)
    }
    const interval = flags.every === undefined ? 0 : intervalSeconds(flags.every)
    const permissions = permissionSettings(flags)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Adding ${kind} connection ${flags.key}`,
      run: async () => {
        const space = await directory.space(flags.space!)
        const saved = await directory.lore.admin.connectors.put(kind, flags.key!, {
          knowledgeSpaceId: space.id,
          sourceConfig,
          contentCrawlIntervalSeconds: interval,
          crawlEnabled: interval > 0,
          identityTrust: flags.trust ? "TRUSTED" : "UNTRUSTED",
          ...permissions
        })
        if (credential === undefined) return saved
        await directory.lore.admin.connectors.setCredential(kind, flags.key!, credential)
        return { ...saved, credentialSet: true }
      },
      view: (c) => [
        ...connectorView(c, `Saved ${c.sourceSystem} connection ${c.sourceConnectionKey}`),
        ...(c.credentialSet ? [] : [{ kind: "hint" as const, text: `Next: printf %s "$SECRET" | lore connectors credential ${c.sourceConnectionKey} --kind ${c.sourceSystem} --credential-stdin` }])
      ]
    })
  }
})
