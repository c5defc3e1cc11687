import { runTask, type ParseTask } from "./Tasks"

/**
 * The parse worker thread (built as its own entry, dist/parse-worker.js): piscina calls the default export
 * once per task. A task that overruns is stopped by terminating this thread (ParsePool.ts), which works even
 * when the parser never yields.
 */
export default (task: ParseTask) => runTask(task)
