import { zipSync } from "fflate"
import { describe, expect, it } from "vitest"
import { readZip, type ZipLimits } from "../../src/archive/Zip"
import { readZip as readSkillZip } from "../../src/assets/skills/Archive"
import { defaultSkillLimits } from "../../src/Config"
import { parseDocument } from "../../src/knowledge/parsing/parse"
import { DOCX_MEDIA_TYPE } from "../../src/knowledge/parsing/types"
import { patchCentral } from "../support/zips"

/**
 * The one guarded ZIP reader (archive/Zip.ts) and the checks the two former readers did not share: the
 * document reader now also refuses hostile names, symlinks and duplicates; the skill reader now also caps the
 * directory's entry count and refuses a stored entry whose size lies.
 */

const text = (value: string) => new TextEncoder().encode(value)
const limits: ZipLimits = { maxEntries: 100, maxFiles: 50, maxPathLength: 255, maxUncompressedBytes: 1024 * 1024, maxEntryBytes: 512 * 1024 }
const codes = (bytes: Uint8Array, options?: Parameters<typeof readZip>[2], with_: ZipLimits = limits) => {
  const read = readZip(bytes, with_, options)
  return read.ok ? [] : read.problems.map((problem) => problem.code)
}

const docxWith = (extra: Record<string, Uint8Array | [Uint8Array, { os: number; attrs: number }]>) =>
  zipSync({ "[Content_Types].xml": text("<Types/>"), "word/document.xml": text("<w:document/>"), ...extra })

describe("the guarded zip reader", () => {
  it("reads a plain archive, inflating only what is selected and answering only what is kept", () => {
    const read = readZip(zipSync({ "a.xml": text("<a/>"), "b.bin": new Uint8Array(10), "c.xml": text("<c/>") }), limits, {
      inflate: (path) => path.endsWith(".xml"),
      keep: (path) => path === "c.xml"
    })
    expect(read.ok && read.files.map((file) => [file.path, new TextDecoder().decode(file.bytes)])).toEqual([["c.xml", "<c/>"]])
  })

  it("reports every rule the directory breaks at once, before inflating anything", () => {
    const bytes = zipSync({
      "../up.txt": text("x"),
      "/abs.txt": text("x"),
      "link": [text("/etc/passwd"), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
      "ok.txt": text("x")
    })
    expect(codes(bytes)).toEqual(["PATH_TRAVERSAL", "ABSOLUTE_PATH", "SYMLINK"])
  })

  it("caps the directory's entry count before reading it, and the file count after", () => {
    const many = zipSync(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}.txt`, text("x")])))
    expect(codes(many)).toEqual(["TOO_MANY_ENTRIES"])
    expect(codes(many, {}, { ...limits, maxEntries: 200 })).toEqual(["TOO_MANY_FILES"])
  })

  it("refuses a stored entry whose declared size differs from its data", () => {
    const stored = zipSync({ "a.txt": [text("hello"), { level: 0 }] } as never)
    expect(codes(stored)).toEqual([])
    expect(codes(patchCentral(stored, "a.txt", (view, at) => view.setUint32(at + 24, 3, true)))).toEqual(["ARCHIVE_INVALID"])
  })

  it("stops a deflated entry at its declared size (a bomb), and refuses a lying entry over the total", () => {
    const honest = zipSync({ "zeros.bin": new Uint8Array(256 * 1024) })
    expect(codes(honest)).toEqual([])
    expect(codes(patchCentral(honest, "zeros.bin", (view, at) => view.setUint32(at + 24, 100, true)))).toEqual(["ZIP_BOMB"])
    expect(codes(zipSync({ "a.bin": new Uint8Array(600 * 1024), "b.bin": new Uint8Array(600 * 1024) }))).toEqual(["TOO_LARGE", "ENTRY_TOO_LARGE", "ENTRY_TOO_LARGE"])
  })

  it("answers ZIP64 and damaged directories with codes, never throwing", () => {
    const plain = zipSync({ "a.txt": text("x") })
    const zip64 = plain.slice()
    new DataView(zip64.buffer).setUint16(zip64.length - 22 + 10, 0xffff, true)
    expect(codes(zip64)).toEqual(["ZIP64"])
    expect(codes(plain.slice(0, plain.length - 30))).toEqual(["ARCHIVE_INVALID"])
    expect(codes(text("not a zip"))).toEqual(["ARCHIVE_INVALID"])
  })
})

describe("checks the document reader gained", () => {
  it("refuses a Word document with a climbing, symlinked or duplicated part as unreadable", async () => {
    expect(await parseDocument(docxWith({ "../evil.xml": text("<x/>") }), DOCX_MEDIA_TYPE)).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE", message: expect.stringMatching(/climbs out/) } })
    const link = docxWith({ "word/link.xml": [text("/etc/passwd"), { os: 3, attrs: (0o120777 << 16) >>> 0 }] })
    expect(await parseDocument(link, DOCX_MEDIA_TYPE)).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE", message: expect.stringMatching(/symbolic link/) } })
    const twice = docxWith({ "word/aaaaaaaa.xml": text("<a/>") })
    // Rename the part to word/document.xml's length-mate so the archive holds one name twice.
    const copy = twice.slice()
    const needle = text("word/aaaaaaaa.xml")
    const same = text("word/document.xml")
    for (let at = 0; at < copy.length - needle.length; at++) if (needle.every((byte, i) => copy[at + i] === byte)) copy.set(same, at)
    expect(await parseDocument(copy, DOCX_MEDIA_TYPE)).toMatchObject({ ok: false, error: { code: "CORRUPT_FILE", message: expect.stringMatching(/more than once/) } })
  })

  it("refuses a Word document of more parts than the limit as too large", async () => {
    const many = docxWith(Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`word/p${i}.xml`, text("<p/>")])))
    expect(await parseDocument(many, DOCX_MEDIA_TYPE, { maxArchiveEntries: 10 })).toMatchObject({ ok: false, error: { code: "ARCHIVE_TOO_LARGE" } })
  })
})

describe("checks the skill reader gained", () => {
  it("caps the entries of the directory (folders and forks included) before reading it", () => {
    const files = Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`s/${i}.md`, text("x")]))
    const read = readSkillZip(zipSync(files), { ...defaultSkillLimits, maxFiles: 1 })
    expect(read.ok ? [] : read.problems.map((problem) => problem.code)).toEqual(["TOO_MANY_FILES"])
  })
})
