import { Parser } from "htmlparser2"

const BLOCK = new Set(["p", "div", "li", "tr", "br", "hr", "table", "ul", "ol", "blockquote", "pre", "section", "ac:layout-section", "ac:layout-cell"])
const SKIPPED = new Set(["script", "style", "ac:parameter", "ri:attachment", "ri:user", "ri:page"])
const MAX_DEPTH = 200

/**
 * Confluence's storage format (XHTML with ac:/ri: macros) as Markdown-like text: headings kept as `#` lines so
 * Lore's chunker cuts by section, list items as `- `, table rows one per line, macro parameters left out and
 * macro bodies kept as text. Nesting beyond MAX_DEPTH keeps its text but no more structure.
 */
export const storageToText = (title: string, storage: string): string => {
  const lines: Array<string> = [`# ${title}`, ""]
  let line = ""
  let skipping = 0
  let depth = 0
  const flush = () => {
    const text = line.replace(/\s+/g, " ").trim()
    if (text) lines.push(text, "")
    line = ""
  }
  const parser = new Parser({
    onopentag: (name) => {
      depth++
      if (SKIPPED.has(name)) skipping++
      if (depth > MAX_DEPTH) return
      const heading = /^h([1-6])$/.exec(name)
      if (heading) {
        flush()
        line = `${"#".repeat(Math.min(6, Number(heading[1]) + 1))} `
      } else if (BLOCK.has(name)) {
        flush()
        if (name === "li") line = "- "
      } else if (name === "td" || name === "th") line += " | "
    },
    ontext: (text) => {
      if (skipping === 0) line += text
    },
    onclosetag: (name) => {
      depth--
      if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1)
      if (/^h[1-6]$/.test(name) || BLOCK.has(name)) flush()
    }
  }, { decodeEntities: true, xmlMode: false, recognizeSelfClosing: true })
  parser.write(storage)
  parser.end()
  flush()
  return lines.join("\n").trim() + "\n"
}
