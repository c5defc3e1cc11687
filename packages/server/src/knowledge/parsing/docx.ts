import { Parser } from "htmlparser2"
import mammoth from "mammoth"
import { DOCUMENT_TITLE_CLASS, htmlToBlocks, type HtmlContent } from "./html"
import { squash } from "./text"
import { readZip, type ZipProblem } from "../../archive/Zip"

const CORE_PROPERTIES = "docProps/core.xml"
/** Word's part names are short; a longer one is not a Word document. */
const MAX_PART_NAME = 1024

export interface DocxLimits {
  readonly maxUncompressedBytes: number
  readonly maxEntries: number
}

/** The archive broke a rule of the guarded reader (archive/Zip.ts); parse.ts words it for the uploader. */
export class ArchiveRefused extends Error {
  constructor(readonly problem: ZipProblem) {
    super(problem.path === "" ? `the archive ${problem.message}` : `its part ${problem.path} ${problem.message}`)
  }

  /** Refused for its size (a bomb, or more than Lore unpacks), rather than for damage or an unknown feature. */
  get tooLarge(): boolean {
    return ["ZIP64", "TOO_MANY_ENTRIES", "TOO_MANY_FILES", "TOO_LARGE", "ENTRY_TOO_LARGE", "ZIP_BOMB"].includes(this.problem.code)
  }
}

/**
 * DOCX through mammoth (Word styles -> semantic HTML, so "Heading 1".."Heading 6" become h1..h6),
 * then the HTML path. Before mammoth sees the archive, every part it may read (the XML parts) is
 * inflated under a meter, so a decompression bomb is refused instead of exhausting memory; images
 * are never read.
 */
export const parseDocx = async (bytes: Uint8Array, limits: DocxLimits): Promise<HtmlContent> => {
  const read = readZip(
    bytes,
    { ...limits, maxEntryBytes: limits.maxUncompressedBytes, maxFiles: limits.maxEntries, maxPathLength: MAX_PART_NAME },
    { inflate: (name) => /\.(xml|rels)$/i.test(name), keep: (name) => name === CORE_PROPERTIES }
  )
  if (!read.ok) throw new ArchiveRefused(read.problems[0]!)
  const result = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      styleMap: [`p[style-name='Title'] => p.${DOCUMENT_TITLE_CLASS}:fresh`],
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" }))
    }
  )
  const content = htmlToBlocks(result.value)
  const core = read.files.find((file) => file.path === CORE_PROPERTIES)?.bytes
  const title = (core && coreTitle(core)) || content.title
  return title === undefined ? { blocks: content.blocks } : { title, blocks: content.blocks }
}

/** dc:title from the document's core properties (File > Properties > Title in Word). */
const coreTitle = (xml: Uint8Array): string | undefined => {
  let inTitle = false
  let title = ""
  const parser = new Parser(
    {
      onopentag: (name) => void (inTitle = name === "dc:title"),
      onclosetag: () => void (inTitle = false),
      ontext: (text) => void (inTitle && (title += text))
    },
    { xmlMode: true, decodeEntities: true }
  )
  parser.write(new TextDecoder().decode(xml))
  parser.end()
  return squash(title) || undefined
}
