/**
 * Work limits of the document parsers (docs/security.md, "Parsers"), beside the upload size limit
 * (LORE_MAX_UPLOAD_BYTES) and the parse time limit (LORE_PARSE_TIMEOUT) that bound every format.
 * A document over one of them ends in ATTENTION with failureCode LIMIT_EXCEEDED and a message naming it.
 */

/** PDF pages read from one document (a long manual is a few hundred; a 2,000-page file is an export to split). */
export const MAX_PDF_PAGES = 2_000
/** HTML (and DOCX, through its HTML) elements open inside one another; browsers stop nesting at 512 too. */
export const MAX_HTML_DEPTH = 512
/** HTML elements in one document. */
export const MAX_HTML_ELEMENTS = 500_000
/** Markdown source characters (CommonMark parsing costs far more per byte than plain text). */
export const MAX_MARKDOWN_CHARS = 10 * 1024 * 1024
/**
 * Inline punctuation CommonMark must pair up (`* _ [ ] \` <`, outside fenced code): micromark's cost grows with
 * it far faster than with the text (measured: 6 KB of `a*` takes 1.5 s, 200 KB of short emphasised paragraphs
 * 5 s). Past either budget the file is read as "light" Markdown: ATX headings and paragraphs, no inline parsing.
 */
export const MAX_MARKDOWN_INLINE_MARKS = 20_000
/** The same, within one paragraph. */
export const MAX_MARKDOWN_PARAGRAPH_MARKS = 500
/** Block quotes and lists inside one another in Markdown. */
export const MAX_MARKDOWN_DEPTH = 64

export class ParseLimitExceeded extends Error {
  constructor(readonly what: string) {
    super(what)
    this.name = "ParseLimitExceeded"
  }
}
