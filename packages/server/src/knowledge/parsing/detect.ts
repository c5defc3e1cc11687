import { isZip, readZipDirectory } from "../../archive/Zip"
import { decodeText, looksLikeLegacyText, looksLikeText } from "./text"
import { DOCX_MEDIA_TYPE, type MediaTypeDetection, type SupportedMediaType } from "./types"

/**
 * Decides what an upload is, by content first: the declared Content-Type and the file name only
 * choose between text formats (HTML, Markdown, plain text), which bytes alone cannot tell apart.
 */
export const detectMediaType = (bytes: Uint8Array, fileName: string, declared?: string): MediaTypeDetection => {
  if (bytes.length === 0) return empty
  if (startsWithPdf(bytes)) return supported("application/pdf")
  if (isZip(bytes)) return detectZip(bytes)
  const extension = extensionOf(fileName)
  if (!looksLikeText(bytes) && !(TEXT_EXTENSIONS.has(extension) && looksLikeLegacyText(bytes))) {
    // Magic numbers only name the refused type in the message; text is never refused for them.
    const known = SIGNATURES.find(({ magic, offset = 0 }) => magic.every((byte, i) => bytes[offset + i] === byte))
    return known ? unsupported(known.mediaType, known.label) : unsupported("application/octet-stream", "Binary files")
  }

  const head = decodeText(bytes.subarray(0, 4096))
  if (head.trim() === "" && decodeText(bytes).trim() === "") return empty
  if (/^\s*\{\\rtf/.test(head)) return unsupported("application/rtf", "RTF documents")

  if (extension === "md" || extension === "markdown" || extension === "mdown" || extension === "mkd") return supported("text/markdown")
  if (extension === "html" || extension === "htm" || extension === "xhtml") return supported("text/html")
  if (extension === "txt" || extension === "text") return supported("text/plain")
  if (/^\s*(?:<\?xml[^>]*>\s*)?(?:<!--[\s\S]*?-->\s*)*<(?:!doctype\s+html|html[\s>])/i.test(head)) return supported("text/html")
  const declaredType = declared?.split(";")[0]?.trim().toLowerCase()
  if (declaredType === "text/markdown" || declaredType === "text/x-markdown") return supported("text/markdown")
  if (declaredType === "text/html" || declaredType === "application/xhtml+xml") return supported("text/html")
  return supported("text/plain")
}

/** Names under which text that is not valid UTF-8 (e.g. Windows-1252) is still accepted. */
const TEXT_EXTENSIONS = new Set(["txt", "text", "md", "markdown", "mdown", "mkd", "html", "htm", "xhtml", "csv", "log"])

const supported = (mediaType: SupportedMediaType): MediaTypeDetection => ({ _tag: "Supported", mediaType })

const empty: MediaTypeDetection = { _tag: "Empty", code: "EMPTY_FILE", detail: "The file is empty: there is nothing to index." }

const unsupported = (detected: string, label: string): MediaTypeDetection => ({
  _tag: "Unsupported",
  code: "UNSUPPORTED_MEDIA_TYPE",
  detected,
  detail: `${label} are not supported. Upload a PDF, Word (.docx), HTML, Markdown or plain-text file.`
})

const extensionOf = (fileName: string): string => {
  const base = fileName.split(/[\\/]/).pop() ?? ""
  const dot = base.lastIndexOf(".")
  return dot > 0 ? base.slice(dot + 1).toLowerCase() : ""
}

/** PDF readers accept the header anywhere in the first 1024 bytes. */
const startsWithPdf = (bytes: Uint8Array): boolean => {
  const limit = Math.min(bytes.length - 5, 1024)
  for (let i = 0; i <= limit; i++) {
    if (bytes[i] === 0x25 && bytes[i + 1] === 0x50 && bytes[i + 2] === 0x44 && bytes[i + 3] === 0x46 && bytes[i + 4] === 0x2d) return true
  }
  return false
}

const detectZip = (bytes: Uint8Array): MediaTypeDetection => {
  const directory = readZipDirectory(bytes, 100_000)
  if (!directory.ok) {
    // A damaged directory: fall back to the local headers' names, so a truncated .docx is reported
    // as an unreadable Word document rather than as an unsupported type.
    return containsAscii(bytes, "word/document.xml") ? supported(DOCX_MEDIA_TYPE) : unsupported("application/zip", "ZIP archives")
  }
  const names = directory.entries.map((entry) => entry.path)
  if (names.includes("word/document.xml")) return supported(DOCX_MEDIA_TYPE)
  if (names.includes("xl/workbook.xml")) return unsupported("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "Excel workbooks")
  if (names.includes("ppt/presentation.xml")) return unsupported("application/vnd.openxmlformats-officedocument.presentationml.presentation", "PowerPoint presentations")
  if (names.includes("content.xml") && names.includes("mimetype")) return unsupported("application/vnd.oasis.opendocument", "OpenDocument files")
  if (names.includes("META-INF/container.xml")) return unsupported("application/epub+zip", "EPUB books")
  return unsupported("application/zip", "ZIP archives")
}

const containsAscii = (bytes: Uint8Array, needle: string): boolean => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).includes(needle, 0, "latin1")

const SIGNATURES: ReadonlyArray<{ readonly magic: ReadonlyArray<number>; readonly offset?: number; readonly mediaType: string; readonly label: string }> = [
  { magic: [0x89, 0x50, 0x4e, 0x47], mediaType: "image/png", label: "PNG images" },
  { magic: [0xff, 0xd8, 0xff], mediaType: "image/jpeg", label: "JPEG images" },
  { magic: [0x47, 0x49, 0x46, 0x38], mediaType: "image/gif", label: "GIF images" },
  { magic: [0x57, 0x45, 0x42, 0x50], offset: 8, mediaType: "image/webp", label: "WebP images" },
  { magic: [0x49, 0x49, 0x2a, 0x00], mediaType: "image/tiff", label: "TIFF images" },
  { magic: [0x4d, 0x4d, 0x00, 0x2a], mediaType: "image/tiff", label: "TIFF images" },
  { magic: [0x66, 0x74, 0x79, 0x70], offset: 4, mediaType: "video/mp4", label: "Video and audio files" },
  { magic: [0x49, 0x44, 0x33], mediaType: "audio/mpeg", label: "Video and audio files" },
  { magic: [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1], mediaType: "application/x-cfb", label: "Legacy Office files (.doc, .xls, .ppt)" },
  { magic: [0x1f, 0x8b], mediaType: "application/gzip", label: "Compressed archives" },
  { magic: [0x37, 0x7a, 0xbc, 0xaf], mediaType: "application/x-7z-compressed", label: "Compressed archives" },
  { magic: [0x52, 0x61, 0x72, 0x21], mediaType: "application/vnd.rar", label: "Compressed archives" },
  { magic: [0x7f, 0x45, 0x4c, 0x46], mediaType: "application/x-executable", label: "Executable files" },
  { magic: [0x4d, 0x5a], mediaType: "application/x-msdownload", label: "Executable files" }
]
