import { readdirSync, readFileSync, statSync } from "node:fs"
import { basename, join, relative, sep } from "node:path"
import type { Classification, PushedDocument, PushResult } from "@lore/sdk"
import { classificationValues, LoreApiError, mediaTypeFor } from "@lore/sdk"
import { oneOf } from "../arguments"
import { defineCommand } from "../command"
import { CliError, ExitCode, toCliError, usageError } from "../errors"
import { present } from "../output/present"
import { styled } from "../output/view"
import { readCredential, withCredentialInput } from "../views/connectors"

const TEXT = new Set(["md", "markdown", "txt", "text", "html", "htm", "csv", "json", "yaml", "yml", "xml", "rst", "adoc"])
const OUTCOMES = ["MATERIALIZED", "ROTATED", "REMATERIALIZED", "UNCHANGED", "RETIRED"] as const
const CONCURRENCY = 4

/** Every regular file under `root` (hidden files and folders left out), relative path with `/`. */
const filesUnder = (root: string): Array<string> => {
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile()) found.push(relative(root, full).split(sep).join("/"))
    }
  }
  walk(root)
  return found
}

const collect = (value: string, previous: Array<string> = []) => [...previous, value]

const documentFor = (root: string, path: string, acl: PushedDocument["acl"], classification: Classification | undefined): PushedDocument => {
  const bytes = readFileSync(join(root, path))
  const extension = path.includes(".") ? path.slice(path.lastIndexOf(".") + 1).toLowerCase() : ""
  const name = basename(path)
  const base = { title: name, fileName: name, acl, ...(classification ? { classification } : {}) }
  return TEXT.has(extension)
    ? { ...base, content: bytes.toString("utf8"), mediaType: mediaTypeFor(name) }
    : { ...base, contentBase64: bytes.toString("base64"), mediaType: mediaTypeFor(name) }
}

interface PushSummary {
  readonly connection: string
  readonly files: number
  readonly counts: Record<(typeof OUTCOMES)[number], number>
  readonly results: ReadonlyArray<PushResult>
  readonly failed: ReadonlyArray<{ readonly externalId: string; readonly code: string; readonly detail: string }>
}

export default defineCommand({
  description: "push every file of a folder to a PUSH connection through the indexing API, with an ACL (from CI)",
  helpGroup: "Knowledge",
  examples: [
    "LORE_CONNECTOR_CREDENTIAL=$SECRET lore push ./handbook --connection handbook --acl-user ann@corp.example --acl-group sales",
    "printf %s \"$SECRET\" | lore push ./docs --connection docs --credential-stdin --classification CONFIDENTIAL --json",
    "lore push ./handbook --connection handbook --acl-group everyone --delete-missing"
  ],
  notes: "Each file's external id is its path relative to the folder; pushing again sends only what changed (UNCHANGED otherwise).\nWith --delete-missing the connection mirrors the folder: documents whose path is gone are retired (RETIRED).\nAuthenticated with the connection's credential (LORE_CONNECTOR_CREDENTIAL or --credential-stdin), not your Lore token.\nExit 6 when a file was refused, 3 when the credential is wrong.",
  configure: (command) =>
    withCredentialInput(
      command
        .argument("<folder>", "the folder whose files are pushed")
        .option("--connection <key>", "the PUSH connection's key")
        .option("--acl-user <email|id>", "a source user allowed to read the files (repeatable); an email is also sent as the principal's email", collect)
        .option("--acl-group <id>", "a source group allowed to read the files (repeatable)", collect)
        .option("--classification <level>", classificationValues.join(", "), oneOf(classificationValues))
        .option("--delete-missing", "then retire the connection's documents whose path is no longer in the folder (a mirror of the folder)")
    ),
  run: async (runtime, command) => {
    const [folder] = command.processedArgs as [string]
    const flags = command.opts<{ connection?: string; aclUser?: Array<string>; aclGroup?: Array<string>; classification?: Classification; deleteMissing?: boolean }>()
    if (!flags.connection) throw usageError("missing --connection: pass --connection <push-connection-key>")
    let isFolder = false
    try { isFolder = statSync(folder).isDirectory() } catch { /* reported below */ }
    if (!isFolder) throw usageError(`${folder} is not a folder`)
    const credential = readCredential(runtime, command)
    const acl = {
      users: (flags.aclUser ?? []).map((user) => (user.includes("@") ? { id: user, email: user } : { id: user })),
      groups: (flags.aclGroup ?? []).map((id) => ({ id }))
    }
    const files = filesUnder(folder)
    // An empty folder with --delete-missing would retire everything the connection has: surely a wrong path.
    if (flags.deleteMissing && files.length === 0) throw usageError(`${folder} has no files; --delete-missing would retire every document of the connection`)
    const lore = runtime.client()
    const connection = flags.connection

    const showBar = runtime.output === "tty" || runtime.progressOnStderr
    let done = 0
    const draw = () => {
      if (!showBar) return
      const width = 30
      const filled = files.length === 0 ? width : Math.round((done / files.length) * width)
      process.stderr.write(`\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${files.length}`)
    }

    /** The connection's documents whose external id is no file of the folder, retired in bulk. */
    const retireMissing = async (): Promise<Array<PushResult>> => {
      const present = new Set(files)
      const missing: Array<string> = []
      for await (const document of lore.indexing.all("PUSH", connection, credential)) if (!present.has(document.externalId)) missing.push(document.externalId)
      const retired: Array<PushResult> = []
      for (let at = 0; at < missing.length; at += 500) {
        const reply = await lore.indexing.bulk("PUSH", connection, { deletes: missing.slice(at, at + 500) }, credential)
        // An id retired meanwhile (by another pusher) comes back NOT_FOUND: nothing left to retire.
        for (const result of reply.results) if (result.outcome !== "NOT_FOUND") retired.push({ ...result, outcome: result.outcome })
      }
      return retired
    }

    const pushAll = async (): Promise<PushSummary> => {
      const results: Array<PushResult> = []
      const failed: Array<PushSummary["failed"][number]> = []
      let next = 0
      let fatal: CliError | undefined
      const worker = async () => {
        while (next < files.length && !fatal) {
          const path = files[next++]!
          try {
            results.push(await lore.indexing.push("PUSH", connection, path, documentFor(folder, path, acl, flags.classification), credential))
          } catch (error) {
            const cli = toCliError(error)
            if (LoreApiError.is(error) && (error.status === 401 || error.status === 403 || error.status === 0)) fatal = cli
            else failed.push({ externalId: path, code: cli.code, detail: cli.detail })
          }
          done++
          draw()
        }
      }
      draw()
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, Math.max(files.length, 1)) }, worker))
      if (showBar) process.stderr.write("\n")
      if (fatal) throw fatal
      if (flags.deleteMissing) results.push(...await retireMissing())
      const counts = Object.fromEntries(OUTCOMES.map((o) => [o, results.filter((r) => r.outcome === o).length])) as PushSummary["counts"]
      return { connection, files: files.length, counts, results: results.sort((a, b) => a.externalId.localeCompare(b.externalId)), failed }
    }

    const summary = await pushAll()
    await present(runtime, {
      progress: `Pushed ${summary.files} files`,
      run: async () => summary,
      view: (s) => [
        { kind: "message", tone: s.failed.length ? "warning" : "success", text: `Pushed ${s.files} files to PUSH connection ${s.connection}` },
        { kind: "fields", fields: [...OUTCOMES.map((o) => [o, String(s.counts[o])] as const), ["FAILED", s.failed.length ? styled(String(s.failed.length), "error") : "0"] as const] },
        ...(s.failed.length
          ? [{ kind: "table" as const, columns: [{ header: "file" }, { header: "code" }, { header: "detail" }], rows: s.failed.map((f) => [f.externalId, f.code, f.detail]), empty: "" }]
          : [])
      ]
    })
    if (summary.failed.length) process.exitCode = ExitCode.invalid
  }
})
