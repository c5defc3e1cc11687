import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { beforeAll, describe, expect, it } from "vitest"
import type { CommandSpec, GroupSpec } from "../src/command"
import { cliDir, ensureBuilt, lore } from "./support/cli"

// The CLI's shape (issue 9.4): one file per command, no command importing another, each shared piece
// written once, tests that never reach into the server's test files.

const srcDir = join(cliDir, "src")
const commandsDir = join(srcDir, "commands")

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? filesUnder(path) : /\.tsx?$/.test(name) ? [path] : []
  })

/** Relative imports of a file, resolved to absolute paths without extension. */
const importsOf = (file: string) =>
  [...readFileSync(file, "utf8").matchAll(/from\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)/g)].map((match) => resolve(dirname(file), match[1] ?? match[2]!))

const withoutExtension = (file: string) => file.replace(/\.tsx?$/, "")

/** Every place in src where `pattern` occurs, as `file:line`. */
const occurrences = (pattern: RegExp) =>
  filesUnder(srcDir).flatMap((file) =>
    readFileSync(file, "utf8")
      .split("\n")
      .flatMap((text, index) => (pattern.test(text) ? [`${relative(srcDir, file)}:${index + 1}`] : []))
  )

beforeAll(() => ensureBuilt())

describe("the CLI's layout", () => {
  it("no command file imports another command's file", () => {
    const offenders = filesUnder(commandsDir).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith(commandsDir + "/"))
        .map((target) => `${relative(srcDir, file)} imports ${relative(srcDir, target)}`)
    )
    expect(offenders).toEqual([])
  })

  it("every command file is a command or a group with examples, and every folder describes its group", async () => {
    const files = filesUnder(commandsDir)
    expect(files.length).toBeGreaterThan(30)
    for (const file of files) {
      const spec = ((await import(file)) as { default: CommandSpec | GroupSpec }).default
      const name = relative(commandsDir, file)
      expect(["command", "group"], name).toContain(spec.kind)
      expect(spec.kind === "group", name).toBe(/(^|\/)index\.ts$/.test(name))
      expect(spec.examples.length, name).toBeGreaterThan(0)
      for (const example of spec.examples) expect(example, name).toMatch(/\blore /)
    }
    for (const file of files) {
      const folder = dirname(file)
      if (folder !== commandsDir) expect(files.map(withoutExtension), relative(srcDir, folder)).toContain(join(folder, "index"))
    }
  })

  it("writes the shared pieces once: UUID pattern, toneColor, the Ink task and loader, present", () => {
    expect(occurrences(/0-9a-f\]\{8\}/)).toHaveLength(1)
    expect(occurrences(/\btoneColor\b.*=/)).toHaveLength(1)
    expect(occurrences(/function (Rich)?Task\b|const (Rich)?Task\b/)).toHaveLength(1)
    expect(occurrences(/import\("\.\/ink"\)|import\("\.\/knowledge"\)/)).toHaveLength(1)
    expect(occurrences(/export const present(Rich)?\b/)).toHaveLength(1)
    expect(occurrences(/\bInvalidArgumentError\(/).every((place) => place.startsWith("arguments.ts"))).toBe(true)
  })

  it("types no enumeration by hand: choices come from the SDK's generated values", () => {
    expect(occurrences(/"PUBLIC", "INTERNAL"|"EMPLOYEE", "MANAGER"|"viewer", "contributor"|"PENDING", "ACCEPTED"/)).toEqual([])
  })

  it("its tests never import the server's test files", () => {
    const testDir = join(cliDir, "test")
    const offenders = filesUnder(testDir).filter((file) => file !== fileURLToPath(import.meta.url) && /server\/test/.test(readFileSync(file, "utf8")))
    expect(offenders).toEqual([])
  })

  it("every command's help shows examples (issue 10.7)", async () => {
    for (const args of [["tokens", "create"], ["admin", "users", "update"], ["admin", "departments", "managers", "add"], ["cite"], ["admin"]]) {
      const result = await lore([...args, "--help"])
      expect(result.code, args.join(" ")).toBe(0)
      expect(result.stdout, args.join(" ")).toMatch(/\nExamples:\n {2}\$ lore /)
    }
  })
})
