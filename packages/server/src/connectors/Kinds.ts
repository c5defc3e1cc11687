import { ConfluenceKind } from "./Confluence"
import { GitKind } from "./Git"
import { GoogleDriveKind } from "./GoogleDrive"
import { JiraKind } from "./Jira"
import { GitHubKind } from "./GitHub"
import type { ConnectorKindModule } from "./Kind"
import { PushKind } from "./Push"
import { SharePointKind } from "./SharePoint"
import { SlackKind } from "./Slack"
import { WebKind } from "./Web"

/** The connector kinds, by sourceSystem (upper case). A new kind is one module added here (docs/connectors.md). */
export const connectorKinds: ReadonlyArray<ConnectorKindModule> = [PushKind, WebKind, GitKind, ConfluenceKind, SharePointKind, GoogleDriveKind, SlackKind, JiraKind, GitHubKind]

export const kindOf = (sourceSystem: string) => connectorKinds.find((kind) => kind.sourceSystem === sourceSystem)
