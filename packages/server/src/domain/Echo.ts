/**
 * No response repeats more than this many bytes of caller input (docs/security.md): a value quoted in a
 * message, a path in a 404, a field in a validation error all go through `quoteInput`.
 */
export const maxEchoBytes = 200

const encoder = new TextEncoder()

/**
 * Caller input as it may appear in a message: at most `maxEchoBytes` UTF-8 bytes (cut on a character boundary),
 * followed by "…" and how much was cut. Never throws, whatever the value.
 */
export const quoteInput = (value: unknown, maxBytes = maxEchoBytes): string => {
  let text: string
  try {
    text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value)
  } catch {
    text = Object.prototype.toString.call(value)
  }
  const bytes = encoder.encode(text)
  if (bytes.length <= maxBytes) return text
  let cut = maxBytes
  // Step back to the start of a UTF-8 character (continuation bytes are 10xxxxxx).
  while (cut > 0 && (bytes[cut]! & 0xc0) === 0x80) cut--
  return `${new TextDecoder().decode(bytes.subarray(0, cut))}… (${bytes.length - cut} more bytes)`
}
