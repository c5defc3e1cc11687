import type { Explored } from "./Explorer"

/**
 * Exports of what the explorer answers the caller (so nothing they may not see): JSON (the explorer's shape),
 * CSV (two sections in one file: `# entities` then `# relations`, each with its header row, RFC 4180 quoting),
 * MARKDOWN (a Mermaid diagram of the top entities, then tables) and TEXT (an indented tree).
 */
export type ExportFormat = "JSON" | "CSV" | "MARKDOWN" | "TEXT"

export const MERMAID_ENTITIES = 30

const csvCell = (value: string | number) => {
  const text = String(value)
  return /[",\r\n]/.test(text) || /^[=+\-@\t]/.test(text) ? `"${text.replace(/^([=+\-@\t])/, "'$1").replace(/"/g, '""')}"` : text
}
const csvRow = (cells: ReadonlyArray<string | number>) => cells.map(csvCell).join(",")

const toCsv = (graph: Explored) => {
  const names = new Map(graph.entities.map((e) => [e.id, e.name]))
  return [
    "# entities",
    csvRow(["id", "name", "type", "description", "citationChunkIds"]),
    ...graph.entities.map((e) => csvRow([e.id, e.name, e.type, e.description, e.citationChunkIds.join(" ")])),
    "",
    "# relations",
    csvRow(["id", "sourceEntityId", "sourceName", "targetEntityId", "targetName", "type", "description", "weight", "keywords", "citationChunkIds"]),
    ...graph.relations.map((r) => csvRow([
      r.id, r.sourceEntityId, names.get(r.sourceEntityId) ?? "", r.targetEntityId, names.get(r.targetEntityId) ?? "", r.type, r.description, r.weight,
      r.keywords.join(" "), r.citationChunkIds.join(" ")
    ])),
    ""
  ].join("\r\n")
}

/** A Mermaid label: quoted, with the characters Mermaid would read as syntax replaced by their entity codes. */
const mermaidLabel = (text: string) => `"${text.replace(/"/g, "#quot;").replace(/[\r\n]+/g, " ").replace(/[<>]/g, (c) => (c === "<" ? "#lt;" : "#gt;"))}"`
const mdCell = (text: string) => text.replace(/\|/g, "\\|").replace(/[\r\n]+/g, " ")

const toMarkdown = (graph: Explored) => {
  const top = graph.entities.slice(0, MERMAID_ENTITIES)
  const node = new Map(top.map((e, i) => [e.id, `e${i}`]))
  const names = new Map(graph.entities.map((e) => [e.id, e.name]))
  const lines = [
    "# Knowledge graph",
    "",
    `Knowledge space \`${graph.knowledgeSpaceId}\`, authorization generation ${graph.authorizationGeneration}: ${graph.entities.length} entities, ${graph.relations.length} relations${graph.truncated ? " (truncated)" : ""}.`,
    "",
    "```mermaid",
    "graph LR",
    ...top.map((e) => `  ${node.get(e.id)}[${mermaidLabel(`${e.name} (${e.type})`)}]`),
    ...graph.relations
      .filter((r) => node.has(r.sourceEntityId) && node.has(r.targetEntityId))
      .map((r) => `  ${node.get(r.sourceEntityId)} -- ${mermaidLabel(r.type)} --- ${node.get(r.targetEntityId)}`),
    "```",
    "",
    "## Entities",
    "",
    "| Name | Type | Description | Citations |",
    "|---|---|---|---|",
    ...graph.entities.map((e) => `| ${mdCell(e.name)} | ${mdCell(e.type)} | ${mdCell(e.description)} | ${e.citationChunkIds.length} |`),
    "",
    "## Relations",
    "",
    "| Source | Type | Target | Weight | Keywords |",
    "|---|---|---|---|---|",
    ...graph.relations.map((r) => `| ${mdCell(names.get(r.sourceEntityId) ?? r.sourceEntityId)} | ${mdCell(r.type)} | ${mdCell(names.get(r.targetEntityId) ?? r.targetEntityId)} | ${r.weight} | ${mdCell(r.keywords.join(", "))} |`),
    ""
  ]
  return lines.join("\n")
}

/** An indented tree: each entity, then its relations indented under it. */
export const toText = (graph: Explored) => {
  const names = new Map(graph.entities.map((e) => [e.id, e.name]))
  const lines: Array<string> = []
  for (const entity of graph.entities) {
    lines.push(`${entity.name} [${entity.type}]${entity.description ? ` - ${entity.description}` : ""}`)
    for (const r of graph.relations) {
      if (r.sourceEntityId === entity.id) lines.push(`  -${r.type}-> ${names.get(r.targetEntityId) ?? r.targetEntityId}`)
      else if (r.targetEntityId === entity.id) lines.push(`  <-${r.type}- ${names.get(r.sourceEntityId) ?? r.sourceEntityId}`)
    }
  }
  if (graph.truncated) lines.push("(truncated)")
  return lines.join("\n") + "\n"
}

export const exportGraph = (graph: Explored, format: ExportFormat): { body: string; contentType: string; extension: string } => {
  switch (format) {
    case "JSON":
      return { body: JSON.stringify(graph, null, 2) + "\n", contentType: "application/json", extension: "json" }
    case "CSV":
      return { body: toCsv(graph), contentType: "text/csv; charset=utf-8", extension: "csv" }
    case "MARKDOWN":
      return { body: toMarkdown(graph), contentType: "text/markdown; charset=utf-8", extension: "md" }
    case "TEXT":
      return { body: toText(graph), contentType: "text/plain; charset=utf-8", extension: "txt" }
  }
}
