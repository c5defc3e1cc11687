import { fork } from "node:child_process"

export interface ChildServer {
  readonly url: string
  /** CPU time the child has used so far (user + system, microseconds). */
  readonly cpuMicros: () => Promise<number>
  readonly stop: () => Promise<void>
}

/**
 * Runs a server module in a child process so the load generator (autocannon, in this process) does
 * not share its event loop. The module answers `{ ready: url }` or `{ failed: message }` over IPC,
 * reports its CPU time on "cpu" and stops cleanly on "stop". BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the child there;
 * BENCH_TRACE_GC=1 prints its garbage collections; BENCH_NODE_FLAGS passes it more node flags (e.g. "--max-semi-space-size=64").
 */
export const startChild = (modulePath: string, args: ReadonlyArray<string>): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const profileDir = process.env.BENCH_CPU_PROF
    const child = fork(modulePath, [...args], {
      execArgv: ["--import", "tsx", ...(process.env.BENCH_TRACE_GC ? ["--trace-gc"] : []), ...(process.env.BENCH_NODE_FLAGS ? process.env.BENCH_NODE_FLAGS.split(" ") : []), ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    let ready = false
    child.once("exit", (code, signal) => {
      if (!ready) return reject(new Error(`${modulePath} exited with ${code} before it was ready`))
      if (!stopping) console.error(`${modulePath} ${args[0] ?? ""} exited unasked (code ${code}, signal ${signal})`)
    })
    let stopping = false
    const cpuWaiters: Array<(micros: number) => void> = []
    child.on("message", (message: { ready?: string; failed?: string; cpuMicros?: number }) => {
      if (message.failed) return reject(new Error(message.failed))
      if (message.cpuMicros !== undefined) return cpuWaiters.shift()?.(message.cpuMicros)
      if (!message.ready) return
      ready = true
      resolve({
        url: message.ready,
        cpuMicros: () =>
          new Promise((answer) => {
            cpuWaiters.push(answer)
            child.send("cpu")
          }),
        stop: async () => {
          stopping = true
          child.send("stop")
          const timer = setTimeout(() => child.kill("SIGKILL"), 15_000)
          await exited
          clearTimeout(timer)
        }
      })
    })
  })

/** For the child side: run `start`, report its URL, and call its stop function on "stop". */
export const serveAsChild = async (start: () => Promise<{ url: string; stop: () => Promise<void> }>) => {
  try {
    const server = await start()
    process.on("message", async (message) => {
      if (message === "cpu") {
        const { user, system } = process.cpuUsage()
        return process.send!({ cpuMicros: user + system })
      }
      if (message !== "stop") return
      await server.stop()
      process.exit(0)
    })
    process.send!({ ready: server.url })
  } catch (error) {
    process.send!({ failed: error instanceof Error ? error.stack ?? error.message : String(error) })
    process.exit(1)
  }
}
