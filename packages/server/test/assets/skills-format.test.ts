import { zipSync, type Zippable } from "fflate"
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { defaultSkillLimits } from "../../src/Config"
import { readZip } from "../../src/assets/skills/Archive"
import { inspectZip } from "../../src/assets/skills/Format"
import { patchCentral } from "../support/zips"

/**
 * The Agent Skills format and the hostile-archive checks, on packages the tests build: each rule has a fixture
 * that breaks it (its own code) and one that passes.
 */

const text = (value: string) => new TextEncoder().encode(value)

const skillMd = (frontmatter: string, body = "# Use\nDo the thing.\n") => `---\n${frontmatter}\n---\n${body}`

const zip = (files: Record<string, string | Uint8Array>, folder: string | null = "pdf-tools") => {
  const entries: Zippable = {}
  for (const [path, content] of Object.entries(files)) entries[folder ? `${folder}/${path}` : path] = typeof content === "string" ? text(content) : content
  return zipSync(entries)
}

const codes = (bytes: Uint8Array, limits = defaultSkillLimits) => {
  const checked = inspectZip(bytes, limits)
  return checked.ok ? [] : checked.problems.map((p) => p.code)
}

const valid = "name: pdf-tools\ndescription: Extracts text and tables from PDF files."

describe("SKILL.md frontmatter", () => {
  it("accepts a skill with every optional field", () => {
    const checked = inspectZip(zip({
      "SKILL.md": skillMd(`${valid}\nlicense: Apache-2.0\ncompatibility: Needs python3\nallowed-tools: Bash(python:*) Read\nmetadata:\n  author: ops\n  version: "1.0"`),
      "scripts/extract.py": "print('hi')\n"
    }), defaultSkillLimits)
    expect(checked.ok).toBe(true)
    if (!checked.ok) return
    expect(checked.skill.inspection).toMatchObject({
      name: "pdf-tools",
      description: "Extracts text and tables from PDF files.",
      license: "Apache-2.0",
      compatibility: "Needs python3",
      allowedTools: "Bash(python:*) Read",
      metadata: { author: "ops", version: "1.0" },
      instructions: "# Use\nDo the thing.\n",
      contentLength: checked.skill.packageBytes.length
    })
    expect(checked.skill.inspection.sha256).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(checked.skill.inspection.files.map((f) => f.path)).toEqual(["SKILL.md", "scripts/extract.py"])
    expect(checked.skill.inspection.files[1]).toEqual({ path: "scripts/extract.py", size: 12, sha256: createHash("sha256").update("print('hi')\n").digest("hex") })
    expect(checked.skill.inspection.sha256).toBe(`sha256:${createHash("sha256").update(checked.skill.packageBytes).digest("hex")}`)
  })

  it("gives the same files the same digest, however they were zipped", () => {
    const a = inspectZip(zip({ "SKILL.md": skillMd(valid), "b.txt": "b", "a.txt": "a" }), defaultSkillLimits)
    const b = inspectZip(zip({ "a.txt": "a", "SKILL.md": skillMd(valid), "b.txt": "b" }), defaultSkillLimits)
    expect(a.ok && b.ok && a.skill.inspection.sha256 === b.skill.inspection.sha256).toBe(true)
  })

  it("accepts SKILL.md at the root of the zip (no folder to compare the name with)", () => {
    expect(codes(zip({ "SKILL.md": skillMd(valid) }, null))).toEqual([])
  })

  const cases: ReadonlyArray<[string, string, string]> = [
    // [code, breaking frontmatter, passing frontmatter]
    ["NAME_REQUIRED", "description: d", valid],
    ["NAME_NOT_A_STRING", "name: 12\ndescription: d", valid],
    ["NAME_TOO_LONG", `name: ${"a".repeat(65)}\ndescription: d`, valid],
    ["NAME_INVALID_CHARACTERS", "name: PDF_tools\ndescription: d", valid],
    ["NAME_INVALID_HYPHENS", "name: -pdf-tools\ndescription: d", valid],
    ["NAME_INVALID_HYPHENS", "name: pdf--tools\ndescription: d", valid],
    ["NAME_INVALID_HYPHENS", "name: pdf-tools-\ndescription: d", valid],
    ["NAME_DIRECTORY_MISMATCH", "name: pdf-tool\ndescription: d", valid],
    ["DESCRIPTION_REQUIRED", "name: pdf-tools", valid],
    ["DESCRIPTION_NOT_A_STRING", "name: pdf-tools\ndescription: [a, b]", valid],
    ["DESCRIPTION_TOO_LONG", `name: pdf-tools\ndescription: ${"d".repeat(1025)}`, `name: pdf-tools\ndescription: ${"d".repeat(1024)}`],
    ["LICENSE_NOT_A_STRING", `${valid}\nlicense: {spdx: MIT}`, `${valid}\nlicense: MIT`],
    ["COMPATIBILITY_NOT_A_STRING", `${valid}\ncompatibility: [linux]`, `${valid}\ncompatibility: linux`],
    ["COMPATIBILITY_INVALID_LENGTH", `${valid}\ncompatibility: ${"c".repeat(501)}`, `${valid}\ncompatibility: ${"c".repeat(500)}`],
    ["ALLOWED_TOOLS_NOT_A_STRING", `${valid}\nallowed-tools: [Bash, Read]`, `${valid}\nallowed-tools: Bash Read`],
    ["METADATA_NOT_A_MAPPING", `${valid}\nmetadata: [a]`, `${valid}\nmetadata: {a: b}`],
    ["METADATA_VALUE_NOT_A_STRING", `${valid}\nmetadata:\n  version: 1.0`, `${valid}\nmetadata:\n  version: "1.0"`],
    ["UNKNOWN_FIELD", `${valid}\nversion: 2`, valid],
    ["FRONTMATTER_INVALID_YAML", `${valid}\nname: again`, valid],
    ["FRONTMATTER_INVALID_YAML", "name: [unclosed\ndescription: d", valid],
    ["FRONTMATTER_NOT_A_MAPPING", "- a\n- b", valid]
  ]

  it.each(cases)("%s: refused with its code, and the fixed fixture passes", (code, broken, fixed) => {
    expect(codes(zip({ "SKILL.md": skillMd(broken) }))).toContain(code)
    expect(codes(zip({ "SKILL.md": skillMd(fixed) }))).toEqual([])
  })

  it("counts characters, not bytes (a 64-character name of accented letters is still refused only for its characters)", () => {
    expect(codes(zip({ "SKILL.md": skillMd(`name: pdf-tools\ndescription: ${"é".repeat(1024)}`) }))).toEqual([])
  })

  it("reports every broken rule at once", () => {
    expect(codes(zip({ "SKILL.md": skillMd("name: Bad--Name\nextra: 1\nmetadata: {a: 1}") }))).toEqual(
      expect.arrayContaining(["UNKNOWN_FIELD", "NAME_INVALID_CHARACTERS", "NAME_INVALID_HYPHENS", "NAME_DIRECTORY_MISMATCH", "DESCRIPTION_REQUIRED", "METADATA_VALUE_NOT_A_STRING"])
    )
  })

  it("needs SKILL.md, frontmatter and UTF-8", () => {
    expect(codes(zip({ "README.md": "hi" }))).toEqual(["SKILL_MD_MISSING"])
    expect(codes(zip({ "SKILL.md": "# no frontmatter\n" }))).toEqual(["FRONTMATTER_MISSING"])
    expect(codes(zip({ "SKILL.md": new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0xfe, 0x0a]) }))).toEqual(["SKILL_MD_NOT_UTF8"])
    expect(codes(zip({ "a/SKILL.md": skillMd(valid), "b/x.txt": "x" }, null))).toEqual(["SKILL_MD_MISSING"])
    expect(codes(text("not a zip at all"))).toEqual(["ARCHIVE_INVALID"])
  })
})

describe("hostile archives", () => {
  const base = { "SKILL.md": skillMd(valid) }

  it("refuses path traversal", () => {
    expect(codes(zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "pdf-tools/../../etc/passwd": text("x") }))).toContain("PATH_TRAVERSAL")
  })

  it("refuses absolute paths", () => {
    expect(codes(zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "/etc/cron.d/job": text("x") }))).toContain("ABSOLUTE_PATH")
    expect(codes(zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "C:/Windows/x": text("x") }))).toContain("ABSOLUTE_PATH")
  })

  it("refuses symlinks, told by the zip's external attributes", () => {
    const bytes = zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "pdf-tools/link": [text("/etc/passwd"), { os: 3, attrs: (0o120777 << 16) >>> 0 }] })
    expect(codes(bytes)).toEqual(["SYMLINK"])
    const regular = zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "pdf-tools/link": [text("/etc/passwd"), { os: 3, attrs: (0o100644 << 16) >>> 0 }] })
    expect(codes(regular)).toEqual([])
  })

  it("refuses duplicate entries", () => {
    const bytes = zip({ ...base, "a.txt": "one", "b.txt": "two" })
    // Rename b.txt to a.txt in both headers (same length), so the archive holds a.txt twice.
    const copy = bytes.slice()
    const needle = text("pdf-tools/b.txt")
    for (let at = 0; at < copy.length - needle.length; at++) {
      if (needle.every((byte, i) => copy[at + i] === byte)) copy[at + needle.length - 5] = "a".charCodeAt(0)
    }
    expect(codes(copy)).toEqual(["DUPLICATE_ENTRY"])
  })

  it("refuses too many files, and admits the limit itself", () => {
    const files = (n: number) => Object.fromEntries([["SKILL.md", skillMd(valid)], ...Array.from({ length: n - 1 }, (_, i) => [`refs/${i}.md`, `${i}`])])
    const limits = { ...defaultSkillLimits, maxFiles: 200 }
    expect(codes(zip(files(200)), limits)).toEqual([])
    expect(codes(zip(files(201)), limits)).toEqual(["TOO_MANY_FILES"])
  })

  it("admits real skills by default: 200 files, 20 MB unpacked, 200-character paths", () => {
    const files = Object.fromEntries([["SKILL.md", skillMd(valid)], ...Array.from({ length: 198 }, (_, i) => [`refs/${i}.md`, `${i}`])])
    files["assets/big.bin"] = new Uint8Array(20 * 1024 * 1024 - 4096)
    files[`refs/${"p".repeat(200 - "pdf-tools/refs/".length - 3)}.md`] = "long"
    expect(codes(zip(files))).toEqual([])
  })

  it("refuses long paths and large files", () => {
    expect(codes(zip({ ...base, [`${"d".repeat(300)}.md`]: "x" }))).toEqual(["PATH_TOO_LONG"])
    expect(codes(zip({ ...base, "big.bin": new Uint8Array(2048) }), { ...defaultSkillLimits, maxFileBytes: 1024 })).toEqual(["FILE_TOO_LARGE"])
    expect(codes(zip({ ...base, "a.bin": new Uint8Array(900), "b.bin": new Uint8Array(900) }), { ...defaultSkillLimits, maxUnpackedBytes: 1500 })).toEqual(["PACKAGE_TOO_LARGE"])
  })

  it("refuses a zip bomb whose declared sizes lie, counting inflated bytes as they stream", () => {
    const honest = zip({ ...base, "zeros.bin": new Uint8Array(40 * 1024 * 1024) })
    expect(codes(honest)).toEqual(["PACKAGE_TOO_LARGE", "FILE_TOO_LARGE"])
    // The same archive claiming 1 KiB for the entry: only the inflation itself can tell.
    const lying = patchCentral(honest, "pdf-tools/zeros.bin", (view, at) => view.setUint32(at + 24, 1024, true))
    expect(codes(lying)).toEqual(["ZIP_BOMB"])
    const lyingWithinLimits = patchCentral(zip({ ...base, "zeros.bin": new Uint8Array(64 * 1024) }), "pdf-tools/zeros.bin", (view, at) => view.setUint32(at + 24, 10, true))
    expect(codes(lyingWithinLimits)).toEqual(["ZIP_BOMB"])
  })

  it("refuses odd paths, encrypted entries and unknown compression; the same package without them passes", () => {
    expect(codes(zip({ ...base, "a\\b.txt": "x" }))).toEqual(["PATH_INVALID"])
    expect(codes(zip({ ...base, "./a.txt": "x" }))).toEqual(["PATH_INVALID"])
    expect(codes(zip({ ...base, "a.txt": "x" }))).toEqual([])
    const plain = zip({ ...base, "a.txt": "x" })
    expect(codes(patchCentral(plain, "pdf-tools/a.txt", (view, at) => view.setUint16(at + 8, view.getUint16(at + 8, true) | 1, true)))).toEqual(["ENCRYPTED_ENTRY"])
    expect(codes(patchCentral(plain, "pdf-tools/a.txt", (view, at) => view.setUint16(at + 10, 99, true)))).toEqual(["UNSUPPORTED_COMPRESSION"])
    // A central directory pointing past the archive.
    expect(codes(patchCentral(plain, "pdf-tools/a.txt", (view, at) => view.setUint32(at + 42, 0x7fffffff, true)))).toEqual(["ARCHIVE_INVALID"])
  })

  it("ignores macOS resource forks", () => {
    const read = readZip(zipSync({ "pdf-tools/SKILL.md": text(skillMd(valid)), "__MACOSX/pdf-tools/._SKILL.md": text("x") }), defaultSkillLimits)
    expect(read.ok && read.files.map((f) => f.path)).toEqual(["pdf-tools/SKILL.md"])
  })
})
