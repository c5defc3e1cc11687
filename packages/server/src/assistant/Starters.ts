import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { transactional } from "../db/Sql"
import type { Principal } from "../domain/Principal"
import { Audit } from "../platform/Audit"
import { KnowledgeSearch } from "../knowledge/Search"
import { StartersRepo } from "./StartersRepo"

/** At most this many starters are offered. */
const STARTER_LIMIT = 6

/**
 * Conversation starters: the ones administrators configured, then starters derived from the documents the
 * caller may read (the catalog, filtered by the access evaluator), so a starter never names what the caller
 * cannot see.
 */
export class Starters extends Effect.Service<Starters>()("lore/AssistantStarters", {
  effect: Effect.gen(function* () {
    const repo = yield* StartersRepo
    const knowledge = yield* KnowledgeSearch
    const audit = yield* Audit
    const transaction = transactional(yield* SqlClient.SqlClient)

    const configured = (caller: Principal) =>
      Effect.map(repo.list(caller.organizationId), (rows) => rows.map((row) => ({ ...row, source: "CONFIGURED" as const })))

    return {
      configured,
      forCaller: (caller: Principal) =>
        Effect.gen(function* () {
          const set = yield* configured(caller)
          if (set.length >= STARTER_LIMIT) return set.slice(0, STARTER_LIMIT)
          const visible = yield* knowledge.catalog(caller, {})
          const newest = [...visible].sort((a, b) => b.updatedAt.getTime() - a.updatedAt.getTime()).slice(0, STARTER_LIMIT - set.length)
          return [
            ...set,
            ...newest.map((entry) => ({
              id: `derived-${entry.knowledgeAssetId}`,
              label: entry.title,
              prompt: `What are the key points of "${entry.title}"?`,
              source: "DERIVED" as const
            }))
          ]
        }),
      replace: (actor: Principal, starters: ReadonlyArray<{ readonly label: string; readonly prompt: string }>) =>
        transaction(Effect.gen(function* () {
          const rows = yield* repo.replace(actor.organizationId, starters)
          yield* audit.record(actor, { action: "assistant.starters.set", resourceType: "assistant_starters", resourceId: actor.organizationId, details: { count: rows.length } })
          return rows.map((row) => ({ ...row, source: "CONFIGURED" as const }))
        }))
    }
  }),
  dependencies: [StartersRepo.Default]
}) {}
