import { type Classification, classificationValues, type KnowledgeSpaceRef } from "@lore/sdk"
import { oneOf, parseCount, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import type { Runtime } from "../../context"
import { usageError } from "../../errors"
import { filesFromArguments } from "../../files"
import { writePlain } from "../../output/plain"
import { loadInk, writeJson } from "../../output/present"
import { plural, type View } from "../../output/view"
import { type AddOptions, type AddResult, addSources, exitCodeOfResult, failIfAny } from "../../uploads"
import { uploadLines } from "../../views/sources"

interface AddFlags {
  readonly space?: string
  readonly classification?: Classification
  readonly title?: string
  readonly wait: boolean
  readonly concurrency: number
}

const addSummary = (results: ReadonlyArray<AddResult>, space: KnowledgeSpaceRef): View => {
  const count = (status: string) => results.filter((result) => result.status === status).length
  const parts = [
    [count("READY"), "ready"],
    [count("PROCESSING"), "processing"],
    [count("ATTENTION"), "need attention"],
    [count("FAILED"), "refused"]
  ].filter(([n]) => (n as number) > 0)
  const bad = results.some((result) => exitCodeOfResult(result) !== undefined)
  return [{ kind: "message", tone: bad ? "warning" : "success", text: `${plural(results.length, "file")} into ${space.key}: ${parts.map(([n, label]) => `${n} ${label}`).join(", ")}` }]
}

const runAdd = async (runtime: Runtime, patterns: ReadonlyArray<string>, flags: AddFlags) => {
  if (!flags.space) throw usageError("missing --space: pass --space <key|id> (the knowledge space to add the files to)")
  const files = await filesFromArguments(patterns)
  if (flags.title !== undefined && files.length !== 1) throw usageError(`--title applies to a single file, but ${files.length} files were given`)
  const lore = runtime.client({ requireToken: true })
  const space = await resolveSpace(lore, flags.space, "upload")
  const options: AddOptions = { knowledgeSpaceId: space.id, classification: flags.classification, title: flags.title, wait: flags.wait, concurrency: flags.concurrency }
  const fileWidth = Math.min(60, Math.max(4, ...files.map((file) => file.length)))
  const lines = (result: AddResult) => uploadLines(result, fileWidth)
  let results: Array<AddResult>
  if (runtime.output === "tty" || runtime.progressOnStderr) {
    // On a terminal the board shows each file's progress; with --json it is drawn on stderr, so stdout
    // carries only the JSON document.
    const ink = await loadInk(runtime)
    const json = runtime.output === "json"
    results = await ink.runUploadBoard(
      files,
      (events, signal) => addSources(lore, files, { ...options, signal }, events),
      lines,
      (done) => (json ? [] : addSummary(done, space)),
      json ? process.stderr : process.stdout
    )
    if (json) {
      failIfAny(results)
      writeJson(results)
      return
    }
  } else if (runtime.output === "json") {
    results = await addSources(lore, files, options)
    failIfAny(results)
    writeJson(results)
    return
  } else {
    // One line per file as it finishes, so a long batch shows progress in a log too.
    results = await addSources(lore, files, options, { onDone: (_, result) => writePlain(lines(result)) })
  }
  failIfAny(results)
}

export default defineCommand({
  description: "upload files (or quoted glob patterns) into a knowledge space and wait until they are searchable",
  examples: [
    "lore sources add handbook.md --space general --classification INTERNAL   # readable by every STANDARD user",
    "lore sources add 'docs/**/*.md' --space eng --concurrency 8",
    "lore sources add report.pdf --space finance --title \"Q3 report\" --no-wait",
    "lore --json sources add *.pdf --space legal > results.json"
  ],
  notes:
    "Uploads are CONFIDENTIAL unless --classification says otherwise: only users with clearance CONFIDENTIAL or RESTRICTED read them.\n" +
    "Exits 0 when every file is READY; otherwise with the worst file's code (6 refused or needs attention, 1 timeout).",
  configure: (command) =>
    command
      .argument("<files...>", "files or glob patterns ('docs/**/*.md')")
      .option("--space <key|id>", "the knowledge space to add them to (required)")
      .option("--classification <level>", `${classificationValues.join(", ")} (default: the server's, CONFIDENTIAL)`, oneOf(classificationValues))
      .option("--title <title>", "title of the document (a single file only; default: from the file name)")
      .option("--no-wait", "return once uploaded, without waiting for ingestion")
      .option("--concurrency <n>", "files uploaded at the same time (1-16)", parseCount(1, 16), 4),
  run: async (runtime, command) => {
    const [patterns] = command.processedArgs as [Array<string>]
    await runAdd(runtime, patterns, command.opts<AddFlags>())
  }
})
