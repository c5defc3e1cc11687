import { Parser } from "htmlparser2"
import mammoth from "mammoth"
import { DOCUMENT_TITLE_CLASS, htmlToBlocks, type HtmlContent } from "./html"
import { squash } from "./text"
import { checkZip, type ZipLimits } from "./zip"

const CORE_PROPERTIES = "docProps/core.xml"

/**
 * DOCX through mammoth (Word styles -> semantic HTML, so "Heading 1".."Heading 6" become h1..h6),
 * then the HTML path. Before mammoth sees the archive, every part it may read (the XML parts) is
 * inflated under a meter, so a decompression bomb is refused instead of exhausting memory; images
 * are never read.
 */
export const parseDocx = async (bytes: Uint8Array, limits: ZipLimits): Promise<HtmlContent> => {
  const { kept } = checkZip(bytes, limits, (name) => /\.(xml|rels)$/i.test(name), new Set([CORE_PROPERTIES]))
  const result = await mammoth.convertToHtml(
    { buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) },
    {
      styleMap: [`p[style-name='Title'] => p.${DOCUMENT_TITLE_CLASS}:fresh`],
      convertImage: mammoth.images.imgElement(() => Promise.resolve({ src: "" }))
    }
  )
  const content = htmlToBlocks(result.value)
  const core = kept.get(CORE_PROPERTIES)
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
