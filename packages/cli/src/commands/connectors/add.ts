import { randomBytes } from "node:crypto"
import { Directory } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { withAtlassianFlags } from "../../views/atlassianSetup"
import { confluenceConfig, confluenceCredential, type ConfluenceFlags, withConfluenceFlags } from "../../views/confluenceSetup"
import { googleDriveConfig, googleDriveCredential, type GoogleDriveFlags, withGoogleDriveFlags } from "../../views/googleDriveSetup"
import { jiraConfig, jiraCredential, type JiraFlags, withJiraFlags } from "../../views/jiraSetup"
import { gitHubConfig, gitHubCredential, type GitHubFlags, withGitHubFlags } from "../../views/githubSetup"
import { sharePointConfig, sharePointCredential, type SharePointFlags, withSharePointFlags } from "../../views/sharepointSetup"
import { slackConfig, slackCredential, type SlackFlags, withSlackFlags } from "../../views/slackSetup"
import { connectorView, intervalSeconds, kindOf, permissionSettings, type SourceConfigFlags, sourceConfigFrom, withCredentialInput, withKind, withSourceConfig } from "../../views/connectors"

export default defineCommand({
  description: "add (or replace) a connection: its kind, key and the knowledge space its documents go to",
  examples: [
    "lore connectors add --kind PUSH --key crm --space sales --trust",
    "lore connectors add --kind WEB --key handbook --space docs --set baseUrl=https://handbook.example.com/ --every 6h",
    "lore connectors add --kind GIT --key runbooks --space ops --config '{\"repository\":\"https://git.example.com/ops/runbooks.git\",\"branch\":\"main\"}'",
    "lore connectors add --kind CONFLUENCE --key wiki --space docs --trust --every 1h   # asks for the site, spaces and token on a terminal",
    "jq -n --rawfile c cert.pem --rawfile k key.pem '{certificatePem: $c, privateKeyPem: $k}' | lore connectors add --kind SHAREPOINT --key m365 --space docs --trust --tenant-id $TENANT --client-id $APP --sharepoint-host https://acme.sharepoint.com --sites https://acme.sharepoint.com/sites/eng --credential-stdin --every 1h",
    "lore connectors add --kind GOOGLE_DRIVE --key drive --space docs --trust --admin-subject admin@acme.com --shared-drives all --users ann@acme.com --key-file lore-reader.json --every 1h",
    "printf %s \"$SLACK_BOT_TOKEN\" | lore connectors add --kind SLACK --key acme --space chat --trust --channels general,C0123ABCD --rescan-days 7 --credential-stdin --every 1h",
    "printf %s \"$TOKEN\" | lore connectors add --kind JIRA --key tickets --space eng --trust --deployment CLOUD --base-url https://acme.atlassian.net --projects ENG,OPS --email jira-admin@acme.com --credential-stdin --every 1h",
    "lore connectors add --kind GITHUB --key code --space eng --trust --owner acme --repositories core,handbook --app-id 123456 --installation-id 7890123 --private-key-file lore-app.pem --every 1h",
    "printf %s \"$TOKEN\" | lore connectors add --kind CONFLUENCE --key wiki --space docs --deployment CLOUD --base-url https://acme.atlassian.net/wiki --spaces ENG,HR --email bot@acme.com --credential-stdin --every 1h --permissions-every 5m"
  ],
  notes:
    "The settings of each kind's sourceConfig are in docs/connectors.md; an invalid one is 422 (exit 6) naming the field.\n" +
    "--generate-credential makes the connection's credential (32 random bytes, base64url), saves it and prints it once: keep it, Lore never shows it again.\n" +
    "'lore connectors kinds' says which kinds need a credential (REQUIRED), may use one (OPTIONAL) or take none (NONE).",
  configure: (command) =>
    withGitHubFlags(withSlackFlags(withGoogleDriveFlags(withSharePointFlags(withJiraFlags(withConfluenceFlags(withAtlassianFlags(withCredentialInput(withSourceConfig(withKind(command))))))))))
      .option("--key <key>", "the connection's key (lowercase, unique per kind)")
      .option("--space <space>", "the knowledge space (key or id) its documents go to")
      .option("--trust", "trust the connection's identities: mapped principals grant access (default: untrusted)")
      .option("--description <text>", "a description kept in the connection's config")
      .option("--generate-credential", "make a random credential (32 bytes, base64url), save it and print it once (e.g. a PUSH connection's shared secret)"),
  run: async (runtime, command) => {
    const flags = command.opts<{ key?: string; space?: string; trust?: boolean; generateCredential?: boolean } & SourceConfigFlags & ConfluenceFlags & SharePointFlags & JiraFlags & GoogleDriveFlags & SlackFlags & GitHubFlags>()
    if (!flags.key) throw usageError("missing --key: pass --key <connection-key>")
    if (!flags.space) throw usageError("missing --space: pass --space <space key or id>")
    const kind = kindOf(command)
    let sourceConfig = sourceConfigFrom(flags, {})
    // Guided kinds: what their flags do not give is asked on a terminal (and named as a missing flag in CI).
    let credential: unknown
    if (kind === "CONFLUENCE") {
      sourceConfig = await confluenceConfig(runtime, flags, sourceConfig)
      credential = await confluenceCredential(runtime, flags, sourceConfig.deployment as string)
    } else if (kind === "JIRA") {
      sourceConfig = await jiraConfig(runtime, flags, sourceConfig)
      credential = await jiraCredential(runtime, flags, sourceConfig.deployment as string)
    } else if (kind === "SHAREPOINT") {
      sourceConfig = await sharePointConfig(runtime, flags, sourceConfig)
      credential = await sharePointCredential(runtime, flags)
    } else if (kind === "GOOGLE_DRIVE") {
      sourceConfig = await googleDriveConfig(runtime, flags, sourceConfig)
      credential = await googleDriveCredential(runtime, flags)
    } else if (kind === "SLACK") {
      sourceConfig = await slackConfig(runtime, flags, sourceConfig)
      credential = await slackCredential(runtime, flags)
    } else if (kind === "GITHUB") {
      sourceConfig = await gitHubConfig(runtime, flags, sourceConfig)
      credential = await gitHubCredential(runtime, flags)
    }
    const interval = flags.every === undefined ? 0 : intervalSeconds(flags.every)
    const permissions = permissionSettings(flags)
    const directory = new Directory(runtime.client({ requireToken: true }))
    const lore = directory.lore
    const generated = flags.generateCredential ? randomBytes(32).toString("base64url") : undefined
    await present(runtime, {
      progress: `Adding ${kind} connection ${flags.key}`,
      run: async () => {
        const space = await directory.space(flags.space!)
        const [saved, kinds] = await Promise.all([
          lore.admin.connectors.put(kind, flags.key!, {
            knowledgeSpaceId: space.id,
            sourceConfig,
            contentCrawlIntervalSeconds: interval,
            crawlEnabled: interval > 0,
            identityTrust: flags.trust ? "TRUSTED" : "UNTRUSTED",
            ...permissions
          }),
          lore.admin.connectors.kinds()
        ])
        const secret = credential ?? generated
        if (secret !== undefined) await lore.admin.connectors.setCredential(kind, flags.key!, secret)
        // The config as stored once the credential is set (a SLACK connection's channel names are ids by then).
        const connection = secret === undefined
          ? saved
          : (await lore.admin.connectors.list(kind)).find((c) => c.sourceConnectionKey === saved.sourceConnectionKey) ?? { ...saved, credentialSet: true }
        return { connection, kind: kinds.find((k) => k.sourceSystem === kind) }
      },
      json: ({ connection }) => (generated ? { ...connection, credential: generated } : connection),
      view: ({ connection: c, kind: about }) => [
        ...connectorView(c, `Saved ${c.sourceSystem} connection ${c.sourceConnectionKey}`),
        ...(generated ? [{ kind: "message" as const, text: `Credential (shown once, keep it): ${generated}` }] : []),
        ...credentialNext(c.credentialSet, about, c.sourceSystem, c.sourceConnectionKey)
      ]
    })
  }
})

/** What to do about the credential next: nothing for a kind that takes none or has one; else how to set one. */
const credentialNext = (
  isSet: boolean,
  about: { readonly credentialRequirement: "REQUIRED" | "OPTIONAL" | "NONE"; readonly credentialHint: string | null } | undefined,
  kind: string,
  key: string
) => {
  if (isSet || about?.credentialRequirement === "NONE") return []
  const set = `printf %s "$SECRET" | lore connectors credential ${key} --kind ${kind} --credential-stdin`
  const what = about?.credentialHint ? ` (${about.credentialHint})` : ""
  return about?.credentialRequirement === "REQUIRED"
    ? [{ kind: "hint" as const, text: `Next: set its credential${what}: ${set}, or run this again with --generate-credential to make one` }]
    : [{ kind: "hint" as const, text: `Optional: a credential${what}: ${set}` }]
}
