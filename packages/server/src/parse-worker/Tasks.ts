import { runSkillTask, type SkillTask } from "../assets/skills/Task"
import { runDocumentTask, type DocumentTask } from "../knowledge/parsing/task"

/**
 * What a parse worker does, as plain data both ways (structured clone: no classes, no functions). The pool
 * (parsing-pool/ParsePool.ts) knows no task: the areas hand it theirs (knowledge/DocumentParsing.ts,
 * assets/skills/Parsing.ts), and this table, which only the worker thread loads, runs them.
 */
export type ParseTask = { readonly kind: "ping" } | SkillTask | DocumentTask

export const runTask = async (task: ParseTask): Promise<unknown> => {
  switch (task.kind) {
    case "ping":
      return { pong: true }
    case "skill-zip":
    case "skill-files":
      return runSkillTask(task)
    case "document":
      return runDocumentTask(task)
  }
}
