import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { encodeBase64Float32 } from "../../src/ai/EmbeddingWire"

/**
 * A real HTTP server on loopback that speaks OpenAI's `POST /v1/embeddings`, for tests: deterministic, and
 * "semantic enough" that vector search can find a passage sharing no word with the query.
 *
 * Vectors are bags of words hashed into `dimensions` buckets with a sign (feature hashing): texts sharing
 * words point the same way. Words are lowercased, stripped of punctuation, lightly stemmed (a trailing "s"),
 * stop words dropped, and the synonyms below fold onto one word first, so "automobile" and "car" land in the
 * same bucket. Vectors are answered WITHOUT normalization (as some real models do), so callers must normalize.
 */
export const synonyms: ReadonlyArray<ReadonlyArray<string>> = [
  ["car", "automobile", "vehicle", "auto"],
  ["money", "cash", "fund", "funds", "currency"],
  ["holiday", "vacation", "leave", "pto"],
  ["doctor", "physician", "clinician"],
  ["buy", "purchase", "acquire"],
  ["employee", "staff", "worker", "personnel"],
  ["big", "large", "huge"],
  ["salary", "pay", "wage", "compensation"]
]

const canonical = new Map<string, string>(synonyms.flatMap((group) => group.map((word) => [word, group[0]!] as const)))

const stopWords = new Set(
  "a an and are as at be by can do does for from has have how i in is it its my of on or our the their this to was we what when where which who will with you your".split(" ")
)

/** The words a text is embedded from, after folding: lowercase, stemmed, synonyms canonical, stop words out. */
export const embeddingTerms = (text: string): Array<string> =>
  text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "" && !stopWords.has(word))
    .map((word) => canonical.get(word) ?? word)
    .map((word) => (word.length > 3 && word.endsWith("s") && !word.endsWith("ss") ? word.slice(0, -1) : word))
    .map((word) => canonical.get(word) ?? word)

const fnv1a = (text: string) => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** The (unnormalized) vector the provider answers for `text`. */
export const embedText = (text: string, dimensions: number): Float32Array => {
  const vector = new Float32Array(dimensions)
  for (const term of embeddingTerms(text)) {
    const hash = fnv1a(term)
    vector[hash % dimensions]! += fnv1a(`${term}#sign`) & 1 ? 1.5 : -1.5
  }
  return vector
}

export interface EmbeddingProviderOptions {
  /** Require `Authorization: Bearer <apiKey>` (401 otherwise). */
  readonly apiKey?: string
  /** The model's own size, used when a request carries no `dimensions` (default 256). */
  readonly dimensions?: number
  /** Answer vectors of this size whatever was asked (to test validation). */
  readonly answerDimensions?: number
  /** Answer number arrays even when base64 was asked. */
  readonly floatsOnly?: boolean
  /** Answer `data` in reverse index order. */
  readonly shuffle?: boolean
  /** Wait this long before answering each request. */
  readonly delayMs?: number
  /** 400 when a request has `dimensions`, like text-embedding-ada-002. */
  readonly rejectDimensionsParameter?: boolean
  /** 400 when a request asks for base64. */
  readonly rejectBase64?: boolean
  /** Models the server knows (404 model_not_found for others); any model when unset. */
  readonly models?: ReadonlyArray<string>
  /** Inputs allowed in one request (OpenAI: 2048); 400 above it. */
  readonly maxInputs?: number
}

export interface RecordedRequest {
  readonly method: string
  readonly path: string
  readonly headers: IncomingHttpHeaders
  /** The parsed JSON body (the raw text when it is not JSON). */
  readonly body: any
  /** The status the provider answered. */
  status: number
}

export interface FailureOptions {
  /** Default 503. */
  readonly status?: number
  /** Sent as the Retry-After header, e.g. "1" or an HTTP date. */
  readonly retryAfter?: string
}

export interface EmbeddingProvider {
  /** Base URL ending in /v1, e.g. http://127.0.0.1:54321/v1 (use it as LORE_EMBEDDING_URL). */
  readonly url: string
  readonly port: number
  /** Every request received, in order, failed ones included. */
  readonly requests: Array<RecordedRequest>
  readonly lastRequest: RecordedRequest | undefined
  /** Answer the next `count` requests with an error status (503 by default). */
  readonly failNext: (count: number, options?: FailureOptions) => void
  /** Change options from now on. */
  readonly configure: (options: Partial<EmbeddingProviderOptions>) => void
  /** What the provider answers for `text` at its native size (unnormalized). */
  readonly embed: (text: string, dimensions?: number) => Float32Array
  readonly close: () => Promise<void>
}

const readBody = (request: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    const parts: Array<Buffer> = []
    request.on("data", (part: Buffer) => parts.push(part))
    request.on("end", () => resolve(Buffer.concat(parts).toString("utf8")))
    request.on("error", reject)
  })

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export const startEmbeddingProvider = async (initial: EmbeddingProviderOptions = {}): Promise<EmbeddingProvider> => {
  let options: EmbeddingProviderOptions = { ...initial }
  const requests: Array<RecordedRequest> = []
  let failures: { remaining: number; status: number; retryAfter?: string } = { remaining: 0, status: 503 }

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const text = await readBody(request)
    // The models list a gateway test reads (setting a route tests its gateway); not recorded, so that tests count embedding calls only.
    if (request.method === "GET" && (request.url ?? "").split("?")[0] === "/v1/models") {
      const known = options.apiKey === undefined || request.headers.authorization === `Bearer ${options.apiKey}`
      response.writeHead(known ? 200 : 401, { "content-type": "application/json" })
      return response.end(JSON.stringify(known
        ? { object: "list", data: (options.models ?? ["text-embedding-3-small"]).map((id) => ({ id, object: "model" })) }
        : { error: { message: "Incorrect API key provided.", type: "invalid_request_error", param: null, code: "invalid_api_key" } }))
    }
    let body: any = text
    try {
      body = JSON.parse(text)
    } catch {
      // recorded as text
    }
    const recorded: RecordedRequest = { method: request.method ?? "", path: request.url ?? "", headers: request.headers, body, status: 0 }
    requests.push(recorded)
    const answer = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      recorded.status = status
      if (response.destroyed) return
      response.writeHead(status, { "content-type": "application/json", ...headers })
      response.end(JSON.stringify(payload))
    }
    const error = (status: number, message: string, type = "invalid_request_error", code: string | null = null) =>
      answer(status, { error: { message, type, param: null, code } })

    if (request.method !== "POST" || recorded.path.split("?")[0] !== "/v1/embeddings") {
      return error(404, `Unknown request URL: ${request.method} ${recorded.path}.`, "invalid_request_error", "unknown_url")
    }
    if (failures.remaining > 0) {
      failures.remaining--
      const status = failures.status
      const headers: Record<string, string> = failures.retryAfter === undefined ? {} : { "retry-after": failures.retryAfter }
      return answer(status, { error: { message: status === 429 ? "Rate limit reached, slow down." : "The server is overloaded.", type: "server_error", code: null } }, headers)
    }
    if (options.apiKey !== undefined && request.headers.authorization !== `Bearer ${options.apiKey}`) {
      return error(401, "Incorrect API key provided.", "invalid_request_error", "invalid_api_key")
    }
    if (options.delayMs) await sleep(options.delayMs)
    if (typeof body !== "object" || body === null) return error(400, "We could not parse the JSON body of your request.")
    if (typeof body.model !== "string") return error(400, "you must provide a model parameter")
    if (options.models && !options.models.includes(body.model)) {
      return error(404, `The model \`${body.model}\` does not exist or you do not have access to it.`, "invalid_request_error", "model_not_found")
    }
    const inputs: unknown = typeof body.input === "string" ? [body.input] : body.input
    if (!Array.isArray(inputs) || inputs.length === 0 || !inputs.every((input) => typeof input === "string" && input !== "")) {
      return error(400, "'$.input' is invalid: expected a non-empty string or array of non-empty strings.")
    }
    if (inputs.length > (options.maxInputs ?? 2048)) return error(400, `'$.input' is too long: at most ${options.maxInputs ?? 2048} inputs.`)
    const format = body.encoding_format ?? "float"
    if (format !== "float" && format !== "base64") return error(400, `'${format}' is not one of ['float', 'base64'] - 'encoding_format'`)
    if (format === "base64" && options.rejectBase64) return error(400, "encoding_format 'base64' is not supported")
    if (body.dimensions !== undefined) {
      if (options.rejectDimensionsParameter) return error(400, "This model does not support specifying dimensions.")
      if (!Number.isInteger(body.dimensions) || body.dimensions < 1) return error(400, "'$.dimensions' must be a positive integer.")
    }
    const size = options.answerDimensions ?? body.dimensions ?? options.dimensions ?? 256
    const data = (inputs as Array<string>).map((input, index) => {
      const vector = embedText(input, size)
      return { object: "embedding", index, embedding: format === "base64" && !options.floatsOnly ? encodeBase64Float32(vector) : Array.from(vector) }
    })
    if (options.shuffle) data.reverse()
    const tokens = (inputs as Array<string>).reduce((sum, input) => sum + input.split(/\s+/).filter(Boolean).length, 0)
    answer(200, { object: "list", data, model: body.model, usage: { prompt_tokens: tokens, total_tokens: tokens } })
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((cause) => {
      if (!response.headersSent) response.writeHead(500, { "content-type": "application/json" })
      response.end(JSON.stringify({ error: { message: String(cause), type: "server_error" } }))
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const port = (server.address() as AddressInfo).port

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    get lastRequest() {
      return requests.at(-1)
    },
    failNext: (count, failure = {}) => {
      failures = { remaining: count, status: failure.status ?? 503, ...(failure.retryAfter === undefined ? {} : { retryAfter: failure.retryAfter }) }
    },
    configure: (changes) => {
      options = { ...options, ...changes }
    },
    embed: (text, dimensions) => embedText(text, dimensions ?? options.dimensions ?? 256),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}
