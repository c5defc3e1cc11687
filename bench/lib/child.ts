import { fork } from "node:child_process"

export interface ChildServer {
  readonly url: string
  readonly stop: () => Promise<void>
}

/**
 * Runs a server module in a child process so the load generator (autocannon, in this process) does
 * not share its event loop. The module answers `{ ready: url }` or `{ failed: message }` over IPC and
 * stops cleanly on the message "stop". BENCH_CPU_PROF=<dir> writes a V8 CPU profile of the child there.
 */
export const startChild = (modulePath: string, args: ReadonlyArray<string>): Promise<ChildServer> =>
  new Promise((resolve, reject) => {
    const profileDir = process.env.BENCH_CPU_PROF
    const child = fork(modulePath, [...args], {
      execArgv: ["--import", "tsx", ...(profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] : [])],
      stdio: ["ignore", "inherit", "inherit", "ipc"]
    })
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    child.once("exit", (code) => reject(new Error(`${modulePath} exited with ${code} before it was ready`)))
    child.on("message", (message: { ready?: string; failed?: string }) => {
      if (message.failed) return reject(new Error(message.failed))
      if (!message.ready) return
      resolve({
        url: message.ready,
        stop: async () => {
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
