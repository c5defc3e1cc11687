import { PDFDocument, StandardFonts } from "pdf-lib"
import { getDocumentProxy } from "unpdf"
const doc = await PDFDocument.create()
const font = await doc.embedFont(StandardFonts.Helvetica)
for (let p = 1; p <= 3; p++) {
  const page = doc.addPage([612, 792])
  let y = 740
  for (let i = 0; i < 30; i++) { page.drawText(`Page ${p} line ${i} travel reimbursements policy text here.`, { x: 72, y, size: 12, font }); y -= 16 }
}
for (const useObjectStreams of [true, false]) {
const bytes = await doc.save({ useObjectStreams })
for (const frac of [0.2, 0.5, 0.8, 0.95]) {
  const cut = bytes.slice(0, Math.floor(bytes.length * frac))
  try {
    const pdf = await getDocumentProxy(cut, { verbosity: 0 } as any)
    const texts = []
    for (let i = 1; i <= pdf.numPages; i++) { try { const tc = await (await pdf.getPage(i)).getTextContent(); texts.push(tc.items.length) } catch (e) { texts.push("ERR " + (e as Error).message) } }
    console.log(useObjectStreams, frac, bytes.length, "pages", pdf.numPages, texts)
  } catch (e) { console.log(useObjectStreams, frac, "error", (e as Error).name, (e as Error).message) }
}}
