/** Browsers and their workers: they keep cookies themselves and cannot stream request bodies over HTTP/1.1. */
export const isBrowser = (): boolean => "document" in globalThis || "WorkerGlobalScope" in globalThis

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export const sleep = (ms: number, signal?: AbortSignal | null): Promise<void> =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(done, ms)
    function done() {
      signal?.removeEventListener("abort", abort)
      resolve()
    }
    function abort() {
      clearTimeout(timer)
      reject(signal!.reason)
    }
    signal?.addEventListener("abort", abort, { once: true })
  })
