import type { MessagePort } from "node:worker_threads"
import { runTask, type ParseTask } from "./Tasks"

/**
 * The parse worker thread (built as its own entry, dist/parse-worker.js): piscina calls the default export
 * once per task. A task that overruns is stopped by terminating this thread (parsing-pool/ParsePool.ts), which
 * works even when the parser never yields.
 */
export default ({ started, ...task }: ParseTask & { readonly started?: MessagePort }) => {
  // The time limit runs from here (ParsePool.ts): waiting for a free worker does not count.
  started?.postMessage("started")
  started?.close()
  return runTask(task as ParseTask)
}
