import { zipSync, type Zippable } from "fflate"

/** Helpers of the hostile-input tests: skill packages and timed requests. */

export const text = (value: string) => new TextEncoder().encode(value)

/** A skill zip `<name>/SKILL.md` with the given frontmatter (between the '---' lines) and extra files. */
export const skillZip = (name: string, frontmatter: string, extra: Record<string, Uint8Array> = {}) => {
  const entries: Zippable = { [`${name}/SKILL.md`]: text(`---\n${frontmatter}\n---\n# ${name}\nSteps.\n`) }
  for (const [path, bytes] of Object.entries(extra)) entries[`${name}/${path}`] = [bytes, { level: 0 }]
  return zipSync(entries)
}

export interface Reply {
  readonly status: number
  readonly body: any
  readonly ms: number
}

/** Posts a zip as the multipart `file` part; answers the status, the JSON body and the time it took. */
export const postZip = async (url: string, token: string, zip: Uint8Array): Promise<Reply> => {
  const form = new FormData()
  form.append("file", new Blob([zip as Uint8Array<ArrayBuffer>], { type: "application/zip" }), "skill.zip")
  const started = performance.now()
  const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form })
  const body = await response.text()
  return { status: response.status, body: body ? JSON.parse(body) : undefined, ms: performance.now() - started }
}

/**
 * Polls GET /api/health every 50 ms while `work` runs; answers what `work` answered and the slowest health
 * reply (ms). On a blocked event loop the slowest reply is as long as the block.
 */
export const healthDuring = async <A>(baseUrl: string, work: Promise<A>): Promise<{ readonly result: A; readonly slowestMs: number; readonly answered: number }> => {
  let done = false
  let slowestMs = 0
  let answered = 0
  const poll = (async () => {
    while (!done) {
      const started = performance.now()
      const reply = await fetch(`${baseUrl}/api/health`)
      await reply.arrayBuffer()
      if (reply.status === 200) answered++
      slowestMs = Math.max(slowestMs, performance.now() - started)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })()
  try {
    const result = await work
    return { result, slowestMs, answered }
  } finally {
    done = true
    await poll
  }
}

/** Bytes that do not compress (so a package's canonical zip costs real deflate work). */
export const noise = (size: number) => {
  const out = new Uint8Array(size)
  let state = 0x9e3779b9
  for (let i = 0; i < size; i++) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    out[i] = state & 0xff
  }
  return out
}
