import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import { appLayer } from "./App"
import { Settings } from "./Config"
import { EmbeddingSettings } from "./ai/EmbeddingSettings"

// SIGINT/SIGTERM interrupt the launch: the server stops accepting, in-flight requests finish and the
// database closes, in reverse order of start.
NodeRuntime.runMain(Layer.launch(appLayer(Layer.merge(Settings.fromEnv, EmbeddingSettings.fromEnv))), { disablePrettyLogger: true })
