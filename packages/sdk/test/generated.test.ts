import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import * as sdk from "../src/index"

/** What `npm run gen` produces, checked as a consumer of the SDK sees it. */

const generated = fileURLToPath(new URL("../src/generated/openapi.ts", import.meta.url))
const document = JSON.parse(readFileSync(fileURLToPath(new URL("../../../spec/openapi.json", import.meta.url)), "utf8")) as {
  paths: Record<string, Record<string, { operationId: string; parameters?: Array<{ name: string; in: string; schema: Record<string, unknown> }> }>>
  components: { schemas: Record<string, { type?: string; enum?: Array<unknown> }> }
}
const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods))

// One program: the generated file, and an empty script whose scope is the global one of the SDK's settings.
const globalScope = "/virtual/global-scope.ts"
const options: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.Preserve,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts", "lib.dom.iterable.d.ts"],
  types: ["node"],
  strict: true,
  noUnusedLocals: true,
  noEmit: true
}
const host = ts.createCompilerHost(options)
const readFile = host.readFile.bind(host)
host.readFile = (name) => (name === globalScope ? "" : readFile(name))
const fileExists = host.fileExists.bind(host)
host.fileExists = (name) => name === globalScope || fileExists(name)
const getSourceFile = host.getSourceFile.bind(host)
host.getSourceFile = (name, language) =>
  name === globalScope ? ts.createSourceFile(name, "", language, true, ts.ScriptKind.TS) : getSourceFile(name, language)
const program = ts.createProgram([generated, globalScope], options, host)
const checker = program.getTypeChecker()

describe("the generated SDK types", () => {
  it("compile on their own, strict, with no unused declaration", () => {
    const diagnostics = ts.getPreEmitDiagnostics(program, program.getSourceFile(generated))
    expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))).toEqual([])
  })

  it("export no name that shadows a global (a `Date` type would hide the built-in Date in an importing file)", () => {
    const globals = new Set(
      checker.getSymbolsInScope(program.getSourceFile(globalScope)!, ts.SymbolFlags.Type | ts.SymbolFlags.Value).map((symbol) => symbol.name)
    )
    expect(globals.has("Date")).toBe(true)
    expect(globals.has("Response")).toBe(true)
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(program.getSourceFile(generated)!)!).map((symbol) => symbol.name)
    expect(exported).toContain("Timestamp")
    expect(exported.filter((name) => globals.has(name))).toEqual([])
  })

  it("type pageSize and limit as integers in the document", () => {
    const paging = operations.flatMap((op) => (op.parameters ?? []).filter((p) => p.in === "query" && ["pageSize", "limit"].includes(p.name)))
    expect(paging.length).toBeGreaterThanOrEqual(3)
    for (const parameter of paging) expect(parameter.schema.type, parameter.name).toBe("integer")
  })

  it("name each endpoint once, so ErrorCode<\"listSources\"> can key on the endpoint name alone", () => {
    const names = operations.map((op) => op.operationId.split(".").pop()!)
    expect(names.filter((name, index) => names.indexOf(name) !== index)).toEqual([])
  })

  it("give every enumeration of the document as values exported by the SDK's public entry", () => {
    const enums = Object.entries(document.components.schemas).filter(([, schema]) => schema.type === "string" && schema.enum)
    expect(enums.map(([name]) => name)).toEqual(expect.arrayContaining(["UserRole", "Clearance", "PlatformRole", "Classification", "SourceStatus", "InvitationStatus", "SpaceRelation", "GrantKind"]))
    const exports = sdk as unknown as Record<string, unknown>
    for (const [name, schema] of enums) {
      const valuesName = `${name[0]!.toLowerCase()}${name.slice(1)}Values`
      expect(exports[valuesName], valuesName).toEqual(schema.enum)
    }
    expect(sdk.classificationValues).toEqual(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"])
    expect(sdk.clearanceValues).toEqual(["PUBLIC", "STANDARD", "CONFIDENTIAL", "RESTRICTED"])
  })
})
