import { ConfluenceKind } from "./Confluence"
import { GitKind } from "./Git"
import { GitHubKind } from "./GitHub"
import type { ConnectorKindModule } from "./Kind"
import { PushKind } from "./Push"
import { SharePointKind } from "./SharePoint"
import { WebKind } from "./Web"

/** The connector kinds, by sourceSystem (upper case). A new kind is one module added here (docs/connectors.md). */
export const connectorKinds: ReadonlyArray<ConnectorKindModule> = [PushKind, WebKind, GitKind, ConfluenceKind, SharePointKind, GitHubKind]

export const kindOf = (sourceSystem: string) => connectorKinds.find((kind) => kind.sourceSystem === sourceSystem)
