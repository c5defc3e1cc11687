import { parseCount } from "../../arguments"
import { type FileUploadResult, failIfAnyFile, exitCodeOfFile, uploadAssistantFiles } from "../../assistantFiles"
import { defineCommand } from "../../command"
import type { Runtime } from "../../context"
import { filesFromArguments } from "../../files"
import { writePlain } from "../../output/plain"
import { loadInk, writeJson } from "../../output/present"
import { plural, type View } from "../../output/view"
import { fileUploadLines } from "../../views/assistantFiles"

interface UploadFlags {
  readonly wait: boolean
  readonly concurrency: number
}

const summary = (results: ReadonlyArray<FileUploadResult>): View => {
  const count = (status: string) => results.filter((result) => result.status === status).length
  const parts = (["READY", "UPLOADED", "PROCESSING", "FAILED", "REFUSED"] as const)
    .map((status) => [count(status), status.toLowerCase()] as const)
    .filter(([n]) => n > 0)
  const bad = results.some((result) => exitCodeOfFile(result) !== undefined)
  return [{ kind: "message", tone: bad ? "warning" : "success", text: `${plural(results.length, "file")}: ${parts.map(([n, label]) => `${n} ${label}`).join(", ")}` }]
}

const runUpload = async (runtime: Runtime, patterns: ReadonlyArray<string>, flags: UploadFlags) => {
  const files = await filesFromArguments(patterns)
  const lore = runtime.client({ requireToken: true })
  const options = { wait: flags.wait, concurrency: flags.concurrency }
  const fileWidth = Math.min(60, Math.max(4, ...files.map((file) => file.length)))
  const lines = (result: FileUploadResult) => fileUploadLines(result, fileWidth)
  let results: Array<FileUploadResult>
  if (runtime.output === "tty" || runtime.progressOnStderr) {
    // A progress bar per file while its bytes go out, then the processing state; with --json on stderr.
    const ink = await loadInk(runtime)
    const json = runtime.output === "json"
    results = await ink.runUploadBoard(
      files,
      (events, signal) => uploadAssistantFiles(lore, files, { ...options, signal }, events),
      lines,
      (done) => (json ? [] : summary(done)),
      json ? process.stderr : process.stdout
    )
    if (json) {
      failIfAnyFile(results)
      writeJson(results)
      return
    }
  } else if (runtime.output === "json") {
    results = await uploadAssistantFiles(lore, files, options)
    failIfAnyFile(results)
    writeJson(results)
    return
  } else {
    results = await uploadAssistantFiles(lore, files, options, { onDone: (_, result) => writePlain(lines(result)) })
  }
  failIfAnyFile(results)
}

export default defineCommand({
  description: "upload files (or quoted glob patterns) as your private assistant files and wait until they are READY",
  aliases: ["add"],
  examples: [
    "lore files upload notes.pdf contract.docx",
    "lore files upload 'meeting-notes/*.md' --no-wait",
    "lore --json files upload report.pdf | jq -r '.[0].fileId'"
  ],
  notes:
    "Files are private to you, never enter the shared knowledge search, and are deleted when they expire (see expiresAt).\n" +
    "Exits 0 when every file is READY; 6 when one FAILED processing or was refused (413), 1 otherwise (429: wait for Retry-After).",
  configure: (command) =>
    command
      .argument("<paths...>", "files or glob patterns ('notes/*.md')")
      .option("--no-wait", "return once uploaded, without waiting for processing")
      .option("--concurrency <n>", "files uploaded at the same time (1-8)", parseCount(1, 8), 2),
  run: async (runtime, command) => {
    const [patterns] = command.processedArgs as [Array<string>]
    await runUpload(runtime, patterns, command.opts<UploadFlags>())
  }
})
