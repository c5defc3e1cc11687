/**
 * A response body read up to `maxBytes` (declared length checked first, then counted as it streams); null when
 * it is larger, and the rest is never downloaded. For files fetched from vendor APIs on a connection's behalf.
 */
export const readBoundedBody = async (response: Response, maxBytes: number): Promise<Uint8Array | null> => {
  if (Number(response.headers.get("content-length") ?? 0) > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    return null
  }
  const reader = response.body?.getReader()
  if (!reader) return new Uint8Array()
  const parts: Array<Uint8Array> = []
  let total = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined)
      return null
    }
    parts.push(value)
  }
  return Buffer.concat(parts)
}
