import { expect } from "vitest"
import { type Client, eventually } from "../knowledge/support"

/** Helpers for the graph tests: black-box over HTTP. */

export const graphIndex = async (who: Client, knowledgeAssetId: string) => {
  const reply = await who.call("POST", `/api/knowledge-assets/${knowledgeAssetId}/graph-index`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as { id: string; status: string } & Record<string, any>
}

export const jobSettled = (who: Client, jobId: string, statuses: ReadonlyArray<string> = ["SUCCEEDED", "FAILED", "CANCELLED"]) =>
  eventually(
    async () => (await who.call("GET", `/api/knowledge-assets/graph-jobs/${jobId}`)).body,
    (job: any) => statuses.includes(job?.status),
    `graph job ${jobId} settled`
  )

/** Indexes the asset and waits for SUCCEEDED. */
export const indexed = async (who: Client, knowledgeAssetId: string) => {
  const job = await graphIndex(who, knowledgeAssetId)
  const done = await jobSettled(who, job.id)
  expect(done.status, JSON.stringify(done)).toBe("SUCCEEDED")
  return done
}

export interface Explored {
  readonly knowledgeSpaceId: string
  readonly authorizationGeneration: number
  readonly canCurate: boolean
  readonly truncated: boolean
  readonly entities: ReadonlyArray<{ id: string; name: string; type: string; description: string; citationChunkIds: ReadonlyArray<string>; depth: number; governingEvidence: any }>
  readonly relations: ReadonlyArray<{ id: string; sourceEntityId: string; targetEntityId: string; type: string; description: string; weight: number; keywords: ReadonlyArray<string>; citationChunkIds: ReadonlyArray<string>; governingEvidence: any }>
}

export const explore = async (who: Client, spaceId: string, params: Record<string, string | number> = {}) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))
  const reply = await who.call("GET", `/api/knowledge-spaces/${spaceId}/graph/explorer?${query}`)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body as Explored
}

export const names = (graph: Explored) => graph.entities.map((e) => e.name).sort()
export const entityNamed = (graph: Explored, name: string) => graph.entities.find((e) => e.name === name)
