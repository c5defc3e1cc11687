import type { Curation, GraphExplorer, GraphJob } from "@lore/sdk"
import { type Block, type Cell, formatTime, styled, type Tone, type View } from "../output/view"

/** The knowledge graph as the graph commands show it: jobs, the explorer as an indented tree, curations. */

export const jobTone = (status: string): Tone =>
  status === "SUCCEEDED" ? "success" : status === "FAILED" ? "error" : status === "CANCELLED" ? "muted" : "warning"

export const jobView = (job: GraphJob): View => [
  { kind: "heading", text: `Graph job ${job.id}` },
  {
    kind: "fields",
    fields: [
      ["Status", styled(job.status, jobTone(job.status))],
      ...(job.lastErrorCode ? ([["Error", styled(`${job.lastErrorCode}: ${job.lastErrorMessage ?? ""}`, "error")]] as const) : []),
      ["Asset", styled(job.knowledgeAssetId, "muted")],
      ["Version", styled(job.knowledgeAssetVersionId, "muted")],
      ["Chunks", `${job.chunksDone} of ${job.chunksTotal}`],
      ["Attempt", String(job.attempt)],
      ["Extractor", job.extractor],
      ["Profile", styled(`${job.graphProcessingProfileId} (sha256 ${job.graphProcessingProfileSha256.slice(0, 12)}…)`, "muted")],
      ["Generation", String(job.projectionGeneration)],
      ["Cancellation", job.cancellationRequested ? `requested ${formatTime(job.cancellationRequestedAt)}` : "-"],
      ["Created", formatTime(job.createdAt)],
      ["Completed", formatTime(job.completedAt)]
    ] satisfies ReadonlyArray<readonly [string, Cell]>
  }
]

export const jobsView = (jobs: ReadonlyArray<GraphJob>): View => [
  {
    kind: "table",
    columns: [{ header: "Status" }, { header: "Job" }, { header: "Asset" }, { header: "Chunks", align: "right" }, { header: "Error", fit: "text" }],
    rows: jobs.map((job) => [styled(job.status, jobTone(job.status)), job.id, job.knowledgeAssetId, `${job.chunksDone}/${job.chunksTotal}`, job.lastErrorCode ?? ""]),
    empty: "No jobs"
  }
]

/** Each entity reached first from a match, its relations indented under it, their other ends under those. */
export const explorerView = (graph: GraphExplorer): View => {
  const byId = new Map(graph.entities.map((e) => [e.id, e]))
  const blocks: Array<Block> = []
  const shown = new Set<string>()
  const line = (indent: number, name: string, type: string, tone?: Tone, via?: string): Block => ({
    kind: "line",
    spans: [
      { text: "  ".repeat(indent) + (via ? `${via} ` : "") },
      { text: name, bold: indent === 0, ...(tone ? { tone } : {}) },
      { text: ` [${type}]`, tone: "muted" }
    ]
  })
  const walk = (id: string, indent: number) => {
    shown.add(id)
    for (const r of graph.relations) {
      const other = r.sourceEntityId === id ? r.targetEntityId : r.targetEntityId === id ? r.sourceEntityId : undefined
      if (!other || shown.has(other)) continue
      const entity = byId.get(other)
      if (!entity) continue
      blocks.push(line(indent, entity.name, entity.type, undefined, r.sourceEntityId === id ? `-${r.type}->` : `<-${r.type}-`))
      walk(other, indent + 1)
    }
  }
  for (const entity of graph.entities.filter((e) => e.depth === 0)) {
    if (shown.has(entity.id)) continue
    blocks.push(line(0, entity.name, entity.type, "accent"))
    walk(entity.id, 1)
  }
  if (blocks.length === 0) blocks.push({ kind: "message", text: "No entities match (or none you may see)" })
  blocks.push({ kind: "hint", text: `${graph.entities.length} entities, ${graph.relations.length} relations${graph.truncated ? " (truncated: raise --limit)" : ""}; authorization generation ${graph.authorizationGeneration}` })
  return blocks
}

export const curationView = (curation: Curation): View => [
  { kind: "message", tone: "success", text: `${curation.curationKind} curation ${curation.id} on ${curation.entity.kind.toLowerCase()} ${curation.entity.id}` },
  ...(curation.dangling ? [{ kind: "hint", text: "Its target has no extracted evidence now (dangling): it applies again if the target returns" } satisfies Block] : [])
]
