import type { IncomingHttpHeaders } from "node:http"

export interface Part {
  readonly headers: Record<string, string>
  readonly name: string | undefined
  /** filename* when present (RFC 5987), else filename */
  readonly fileName: string | undefined
  readonly asciiFileName: string | undefined
  readonly data: Buffer
}

/** A strict multipart/form-data parser for tests (RFC 7578): any framing mistake throws. */
export const parseMultipart = (headers: IncomingHttpHeaders, body: Buffer): Array<Part> => {
  const match = /^multipart\/form-data;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(headers["content-type"] ?? "")
  if (!match) throw new Error(`not multipart: ${headers["content-type"]}`)
  const delimiter = Buffer.from(`--${match[1] ?? match[2]}`)
  if (body.indexOf(delimiter) !== 0) throw new Error("body does not start with the boundary")
  const parts: Array<Part> = []
  let at = delimiter.length
  for (;;) {
    if (body.subarray(at, at + 2).toString() === "--") {
      if (body.subarray(at + 2).toString() !== "\r\n") throw new Error("junk after the closing boundary")
      return parts
    }
    if (body.subarray(at, at + 2).toString() !== "\r\n") throw new Error("no CRLF after a boundary")
    const headerEnd = body.indexOf("\r\n\r\n", at + 2)
    const next = body.indexOf(Buffer.concat([Buffer.from("\r\n"), delimiter]), headerEnd)
    if (headerEnd < 0 || next < 0) throw new Error("unterminated part")
    const partHeaders: Record<string, string> = {}
    for (const line of body.subarray(at + 2, headerEnd).toString("utf8").split("\r\n")) {
      const colon = line.indexOf(":")
      partHeaders[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
    }
    const disposition = partHeaders["content-disposition"] ?? ""
    const extended = /\bfilename\*=UTF-8''([^;\s]+)/i.exec(disposition)?.[1]
    parts.push({
      headers: partHeaders,
      name: /\bname="([^"]*)"/.exec(disposition)?.[1],
      fileName: extended !== undefined ? decodeURIComponent(extended) : /\bfilename="([^"]*)"/.exec(disposition)?.[1],
      asciiFileName: /\bfilename="([^"]*)"/.exec(disposition)?.[1],
      data: body.subarray(headerEnd + 4, next)
    })
    at = next + 2 + delimiter.length
  }
}
