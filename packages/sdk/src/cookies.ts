/**
 * A minimal cookie jar for runtimes without a cookie store (Node): one client talks to one server, so
 * cookies are keyed by name only; Domain and Path are ignored. Browsers never get here: they keep
 * HttpOnly cookies themselves and hide Set-Cookie from scripts.
 */
export class CookieJar {
  readonly #cookies = new Map<string, { value: string; expiresAt: number | undefined }>()

  /** Records every Set-Cookie of a response; Max-Age<=0 or a past Expires deletes the cookie. */
  store(response: Response): void {
    for (const line of setCookieLines(response.headers)) {
      const [pair = "", ...attributes] = line.split(";")
      const eq = pair.indexOf("=")
      if (eq <= 0) continue
      const name = pair.slice(0, eq).trim()
      const value = pair.slice(eq + 1).trim()
      let expiresAt: number | undefined
      for (const attribute of attributes) {
        const [key = "", raw = ""] = attribute.split("=", 2).map((part) => part.trim())
        if (key.toLowerCase() === "max-age" && raw !== "") expiresAt = Date.now() + Number(raw) * 1000
        else if (key.toLowerCase() === "expires" && expiresAt === undefined) expiresAt = Date.parse(raw) || undefined
      }
      if (value === "" || (expiresAt !== undefined && expiresAt <= Date.now())) this.#cookies.delete(name)
      else this.#cookies.set(name, { value, expiresAt })
    }
  }

  /** The Cookie header value to send, or undefined when the jar is empty. */
  header(): string | undefined {
    const now = Date.now()
    const pairs: Array<string> = []
    for (const [name, cookie] of this.#cookies) {
      if (cookie.expiresAt !== undefined && cookie.expiresAt <= now) this.#cookies.delete(name)
      else pairs.push(`${name}=${cookie.value}`)
    }
    return pairs.length > 0 ? pairs.join("; ") : undefined
  }

  clear(): void {
    this.#cookies.clear()
  }
}

const setCookieLines = (headers: Headers): Array<string> => {
  // getSetCookie keeps cookies apart; a joined Set-Cookie header cannot be split safely (Expires has commas).
  if (typeof headers.getSetCookie === "function") return headers.getSetCookie()
  const joined = headers.get("set-cookie")
  return joined ? joined.split(/,(?=\s*[^;,=\s]+=)/) : []
}
