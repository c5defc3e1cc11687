import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { appLayer } from "./App"
import { Settings } from "./Config"
import { EmbeddingSettings } from "./ai/EmbeddingSettings"

/**
 * However the orderly shutdown goes (a request that will not finish, a finalizer that waits), the process is
 * gone this long after SIGTERM or SIGINT: a deployment's stop never hangs (docs/security.md).
 */
const SHUTDOWN_DEADLINE_MS = 9_000
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    setTimeout(() => {
      process.stderr.write(`Lore did not stop within ${SHUTDOWN_DEADLINE_MS / 1000} s of ${signal}; exiting now\n`)
      process.exit(1)
    }, SHUTDOWN_DEADLINE_MS).unref()
  })
}

// SIGINT/SIGTERM interrupt the launch: the server stops accepting, in-flight requests are interrupted (a parse
// worker busy for one of them is terminated), and the database closes, in reverse order of start.
NodeRuntime.runMain(Layer.launch(appLayer(Layer.merge(Settings.fromEnv, EmbeddingSettings.fromEnv))), { disablePrettyLogger: true })
