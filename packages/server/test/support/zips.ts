/** Rewrites fields of the central directory entry of `name` in a zip built by fflate (the tests' own hostile archives). */
export const patchCentral = (bytes: Uint8Array, name: string, patch: (view: DataView, at: number) => void) => {
  const copy = bytes.slice()
  const view = new DataView(copy.buffer)
  for (let at = 0; at < copy.length - 4; at++) {
    if (view.getUint32(at, true) !== 0x02014b50) continue
    const nameLength = view.getUint16(at + 28, true)
    if (new TextDecoder().decode(copy.subarray(at + 46, at + 46 + nameLength)) === name) patch(view, at)
  }
  return copy
}
