import { Layer } from "effect"
import { ConnectorConnections } from "./Connections"
import { CrawlerLive } from "./Crawler"
import { ConnectorDocuments } from "./Documents"
import { SourceIdentity } from "./Identity"
import { Indexing } from "./Indexing"
import { ConnectorsRepo } from "./Repo"

/** The connectors area: connections and their kinds, the indexing API, source identity, and the crawl job. */
export const ConnectorsLive = CrawlerLive.pipe(
  Layer.provideMerge(Layer.mergeAll(ConnectorConnections.Default, SourceIdentity.Default, Indexing.Default)),
  Layer.provideMerge(Layer.mergeAll(ConnectorDocuments.Default, ConnectorsRepo.Default))
)
