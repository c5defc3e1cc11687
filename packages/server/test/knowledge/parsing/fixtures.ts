import { Document, HeadingLevel, Packer, Paragraph, Table, TableCell, TableRow, TextRun } from "docx"
import { PDFDocument, type PDFFont, StandardFonts } from "pdf-lib"

/** Real sample documents, built the way real tools build them. */

export const filler = (topic: string, sentences: number): string =>
  Array.from({ length: sentences }, (_, i) => `This is sentence ${i + 1} about ${topic} and the rules that apply to it.`).join(" ")

interface PdfLine {
  readonly text: string
  readonly size: number
}

/**
 * A four-page handbook: a title, "Chapter N" headings at 18 pt, a 14 pt subheading, body at 11 pt,
 * with a distinct phrase per page.
 */
export const handbookPdf = async (): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  doc.setTitle("Employee Handbook")
  const regular = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const pages: ReadonlyArray<ReadonlyArray<PdfLine | string>> = [
    [
      { text: "Employee Handbook", size: 24 },
      { text: "Chapter 1: Travel", size: 18 },
      `Book flights through the travel desk at least fourteen days ahead. ${filler("travel", 6)}`,
      `Economy class is the default for flights under six hours. ${filler("flights", 4)}`
    ],
    [
      { text: "Chapter 2: Expenses", size: 18 },
      `Receipts must be submitted within thirty days of purchase. ${filler("expenses", 8)}`,
      `Expenses above five hundred euros need a manager's approval. ${filler("approvals", 4)}`
    ],
    [
      { text: "Meals and per diem", size: 14 },
      `The daily meal allowance is forty-two euros in domestic cities. ${filler("meals", 6)}`
    ],
    [
      { text: "Chapter 3: Security", size: 18 },
      `Report a lost laptop to the security hotline within one hour. ${filler("security", 5)}`
    ]
  ]
  for (const [index, lines] of pages.entries()) {
    const page = doc.addPage([612, 792])
    page.drawText(`Page ${index + 1} of ${pages.length}`, { x: 280, y: 40, size: 9, font: regular })
    let y = 740
    for (const line of lines) {
      if (typeof line === "string") {
        for (const wrapped of wrap(line, regular, 11, 468)) {
          page.drawText(wrapped, { x: 72, y, size: 11, font: regular })
          y -= 14
        }
        y -= 12
      } else {
        y -= 6
        page.drawText(line.text, { x: 72, y, size: line.size, font: bold })
        y -= line.size + 12
      }
    }
  }
  return doc.save()
}

const wrap = (text: string, font: PDFFont, size: number, width: number): string[] => {
  const lines: string[] = []
  let line = ""
  for (const word of text.split(" ")) {
    const candidate = line === "" ? word : `${line} ${word}`
    if (line !== "" && font.widthOfTextAtSize(candidate, size) > width) {
      lines.push(line)
      line = word
    } else {
      line = candidate
    }
  }
  if (line !== "") lines.push(line)
  return lines
}

export const policyDocx = async (): Promise<Uint8Array> => {
  const doc = new Document({
    title: "Information Security Policy",
    sections: [
      {
        children: [
          new Paragraph({ text: "Access Control", heading: HeadingLevel.HEADING_1 }),
          new Paragraph({ children: [new TextRun("Every account must use multi-factor authentication. "), new TextRun({ text: filler("accounts", 3), bold: true })] }),
          new Paragraph({ text: "Passwords", heading: HeadingLevel.HEADING_2 }),
          new Paragraph("Passwords are at least sixteen characters long and never reused."),
          new Paragraph({ text: "Rotate service credentials every ninety days.", bullet: { level: 0 } }),
          new Paragraph({ text: "Incident Response", heading: HeadingLevel.HEADING_1 }),
          new Paragraph("Call the incident commander on the pager rotation within fifteen minutes."),
          new Table({
            rows: [
              new TableRow({ children: [new TableCell({ children: [new Paragraph("Severity")] }), new TableCell({ children: [new Paragraph("Response time")] })] }),
              new TableRow({ children: [new TableCell({ children: [new Paragraph("SEV1")] }), new TableCell({ children: [new Paragraph("Fifteen minutes")] })] })
            ]
          })
        ]
      }
    ]
  })
  return new Uint8Array(await Packer.toBuffer(doc))
}

export const noisyHtml = `<!DOCTYPE html>
<html lang="en">
<head>
  <title>Onboarding &amp; Setup</title>
  <style>body { font-family: sans-serif } .x::after { content: "STYLE NOISE" }</style>
  <script>var tracking = "SCRIPT NOISE"; document.write("<p>written</p>")</script>
</head>
<body>
  <nav><a href="/">Home</a> <a href="/about">NAV NOISE</a></nav>
  <template><p>TEMPLATE NOISE</p></template>
  <h1>Welcome aboard</h1>
  <p>Your laptop arrives on your first day. Caf&eacute; vouchers are in the welcome kit.</p>
  <h2>Accounts</h2>
  <ul><li>Request VPN access from the IT portal.</li><li>Enable <b>two-factor</b> login.</li></ul>
  <h3>Shared drives</h3>
  <p>Team folders live on the shared drive<br>under Departments.</p>
  <table><tr><th>System</th><th>Owner</th></tr><tr><td>Payroll</td><td>Finance</td></tr></table>
  <div hidden>HIDDEN NOISE</div>
  <pre>npm install
npm test</pre>
  <h2>Benefits</h2>
  <p>Dental coverage starts after the probation period.
</body>
</html>`

export const nestedMarkdown = `---
title: "Engineering Guide"
owner: platform
---

# Engineering Guide

Intro paragraph for the guide.

## Deployments

Deploys happen on weekdays only.

### Rollbacks

Use the *rollback* command to revert a bad release:

\`\`\`sh
deploy rollback --to previous
\`\`\`

- Announce the rollback in the incidents channel.
- File a postmortem within two days.

## Code review

| Rule | Value |
| ---- | ----- |
| Approvals | two |

> Reviews should be kind and specific.
`

export const pagedText = [
  "Quarterly report\n\nRevenue grew by twelve percent in the first quarter.",
  "Costs stayed flat.\n\nHeadcount rose to 240 people across four offices.",
  "Outlook\n\nThe board expects steady growth next year."
].join("\f")

/** Sets the size a ZIP's central directory declares for `name` (to fake a bomb cheaply). */
export const patchDeclaredSize = (zip: Uint8Array, name: string, size: number): Uint8Array => {
  const out = new Uint8Array(zip)
  const view = new DataView(out.buffer)
  for (let i = 0; i + 46 <= out.length; i++) {
    if (view.getUint32(i, true) !== 0x02014b50) continue
    const nameLength = view.getUint16(i + 28, true)
    if (new TextDecoder().decode(out.subarray(i + 46, i + 46 + nameLength)) === name) {
      view.setUint32(i + 24, size, true)
      return out
    }
  }
  throw new Error(`no central directory entry ${name}`)
}
