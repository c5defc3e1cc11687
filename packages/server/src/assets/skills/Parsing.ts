import { Effect } from "effect"
import type { SkillLimits } from "../../Config"
import { withNullPrototypes } from "../../domain/SafeKeys"
import { type ParsePool, spokenDuration } from "../../parsing-pool/ParsePool"
import type { SkillCheck } from "./Format"
import { runSkillTask, type SkillTask } from "./Task"

/** A skill package checked in a parse worker; a parse that overruns is PARSE_TIMEOUT, a worker that died (memory) PARSE_FAILED. */
export const inspectSkillZipOffThread = (pool: ParsePool, bytes: Uint8Array, limits: SkillLimits): Effect.Effect<SkillCheck> => {
  const task: SkillTask = { kind: "skill-zip", bytes, limits }
  return pool.run(task, async () => runSkillTask(task)).pipe(
    Effect.map((check): SkillCheck =>
      // Structured clone gave the metadata a prototype again: back to a null-prototype map.
      check.ok ? { ok: true, skill: { ...check.skill, inspection: { ...check.skill.inspection, metadata: withNullPrototypes(check.skill.inspection.metadata) as Record<string, string> } } } : check
    ),
    Effect.catchTags({
      ParseTimeout: (error) =>
        Effect.succeed<SkillCheck>({ ok: false, problems: [{ code: "PARSE_TIMEOUT", path: "", message: `reading the package took longer than ${spokenDuration(error.timeoutMs)}, so it was stopped` }] }),
      ParseWorkerFailed: (error) =>
        Effect.as(
          Effect.logWarning("skill parse worker failed").pipe(Effect.annotateLogs({ reason: error.reason })),
          { ok: false, problems: [{ code: "PARSE_FAILED", path: "", message: "reading the package stopped its parser (too much memory?)" }] } satisfies SkillCheck
        )
    })
  )
}
