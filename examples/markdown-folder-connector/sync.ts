import { type BulkPush, createLoreClient, LoreApiError, type PushResult } from "@lore/sdk"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { basename, join, relative, sep } from "node:path"
import { parseArgs } from "node:util"
import { AclFileError, documentAcl, parseAclFile, pushedGroup, ruleFor } from "./aclFile"

/**
 * A connector for a system Lore does not ship: a folder of Markdown files whose readers are set in an ACL file.
 * It mirrors the folder into a PUSH connection through the indexing API (`lore.indexing`):
 *
 *   1. pushes every group of acl.yaml with its whole membership (groups nest);
 *   2. pushes each Markdown file a rule admits, with its readers as the source names them (users, groups),
 *      in bulk requests; a file whose text, title, readers and classification did not change since the last
 *      run (the checkpoint in the state file) and that the connection still has is not sent at all;
 *   3. retires the connection's documents that are no longer in the folder (or no rule admits any more);
 *   4. empties groups that were removed from acl.yaml (the indexing API replaces a group's membership).
 *
 * Everything is idempotent by external id (the file's path), so a run killed half-way is simply run again.
 *
 *   LORE_SERVER=http://127.0.0.1:8787 LORE_CONNECTOR_CREDENTIAL=<the connection's secret> \
 *     npx tsx examples/markdown-folder-connector/sync.ts examples/markdown-folder-connector/sample --connection handbook
 *
 * Options: --acl <file> (default <folder>/acl.yaml), --state <file> (default <folder>/.lore-sync.json),
 * --full (ignore the checkpoint: send every file; the server answers UNCHANGED for those that are),
 * --json (print the summary as JSON on stdout). Exit 0 done, 1 some files failed, 2 bad arguments or acl.yaml, 3 a wrong credential.
 */

const usage = "usage: tsx examples/markdown-folder-connector/sync.ts <folder> --connection <key> [--acl acl.yaml] [--state file] [--full] [--json]"
const BATCH_DOCUMENTS = 100
// The server refuses JSON bodies over LORE_MAX_JSON_BYTES (1 MiB by default): stay well under it.
const BATCH_BYTES = 512 * 1024

type BulkDocument = NonNullable<BulkPush["documents"]>[number]

interface State { readonly connection: string; readonly groups: ReadonlyArray<string>; readonly digests: Record<string, string> }

const fail = (message: string, code = 2): never => {
  console.error(message)
  process.exit(code)
}

const { values, positionals } = (() => {
  try {
    return parseArgs({
      allowPositionals: true,
      options: { connection: { type: "string" }, acl: { type: "string" }, state: { type: "string" }, full: { type: "boolean" }, json: { type: "boolean" } }
    })
  } catch (error) {
    return fail(`${(error as Error).message}\n${usage}`)
  }
})()
const folder = positionals[0]
const connection = values.connection
if (!folder || !connection || positionals.length > 1) fail(usage)
const credential = process.env.LORE_CONNECTOR_CREDENTIAL?.trim() || fail("set LORE_CONNECTOR_CREDENTIAL to the PUSH connection's credential")
const aclPath = values.acl ?? join(folder!, "acl.yaml")
const statePath = values.state ?? join(folder!, ".lore-sync.json")

/** Markdown files under the folder, as `/`-separated relative paths (hidden files and folders left out). */
const markdownFiles = (root: string): Array<string> => {
  const found: Array<string> = []
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith(".") || entry.name === "node_modules") continue
      const full = join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.isFile() && /\.(md|markdown)$/i.test(entry.name)) found.push(relative(root, full).split(sep).join("/"))
    }
  }
  walk(root)
  return found
}

/** The front matter's `title:`, else the first `# ` heading, else the file name without `.md`. */
const titleOf = (path: string, text: string) => {
  const frontMatter = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text)?.[1]
  const fromFrontMatter = frontMatter && /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter)?.[1]
  const heading = /^#\s+(.+?)\s*#*\s*$/m.exec(text)?.[1]
  return (fromFrontMatter || heading || basename(path).replace(/\.(md|markdown)$/i, "")).slice(0, 500)
}

const readState = (): State | undefined => {
  if (!existsSync(statePath)) return undefined
  try {
    const state = JSON.parse(readFileSync(statePath, "utf8")) as State
    // A state file of another connection says nothing about this one.
    return state.connection === connection ? state : undefined
  } catch {
    return undefined
  }
}

let acl: ReturnType<typeof parseAclFile>
try {
  acl = parseAclFile(readFileSync(aclPath, "utf8"))
} catch (error) {
  if (error instanceof AclFileError) fail(`${aclPath}: ${error.message}`)
  fail(`cannot read ${aclPath}: ${(error as Error).message}`)
}
const files = markdownFiles(folder!)
// An empty folder (a wrong path, an unmounted volume) would retire every document of the connection.
if (files.length === 0) fail(`${folder} has no Markdown files; refusing to retire every document of connection ${connection}`)

const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787" })
const previous = readState()

try {
  // 1. Groups first, so that a document's ACL never names a group the server has not seen yet.
  for (const id of acl!.groups.keys()) await lore.indexing.pushGroup("PUSH", connection!, id, pushedGroup(acl!, id), credential)

  // 2. What the connection has now: external ids of its live documents.
  const live = new Set<string>()
  for await (const document of lore.indexing.all("PUSH", connection!, credential)) live.add(document.externalId)

  const admitted: Array<string> = []
  const unmatched: Array<string> = []
  const digests: Record<string, string> = {}
  const toSend: Array<{ externalId: string; body: string; document: BulkDocument }> = []
  for (const path of files) {
    const rule = ruleFor(acl!, path)
    if (!rule) {
      unmatched.push(path)
      continue
    }
    admitted.push(path)
    const text = readFileSync(join(folder!, path), "utf8")
    const document: BulkDocument = {
      externalId: path,
      title: titleOf(path, text),
      content: text,
      fileName: basename(path),
      mediaType: "text/markdown",
      classification: rule.classification ?? acl!.classification,
      acl: documentAcl(acl!, rule),
      ...(acl!.url ? { url: acl!.url.replaceAll("{path}", path.split("/").map(encodeURIComponent).join("/")) } : {})
    }
    const body = JSON.stringify(document)
    const digest = createHash("sha256").update(body).digest("hex")
    digests[path] = digest
    // The checkpoint: skip what was sent unchanged before, unless the connection lost it since.
    if (!values.full && previous?.digests[path] === digest && live.has(path)) continue
    toSend.push({ externalId: path, body, document })
  }

  // 3. Push in bulk: each document is applied on its own; failures are listed, not thrown.
  // A delete of an id the connection no longer holds comes back NOT_FOUND (somebody retired it meanwhile).
  const results: Array<Omit<PushResult, "outcome"> & { readonly outcome: PushResult["outcome"] | "NOT_FOUND" }> = []
  const failed: Array<{ externalId: string | null; code: string; detail: string }> = []
  let batch: typeof toSend = []
  let batchBytes = 0
  const flush = async () => {
    if (batch.length === 0) return
    try {
      const reply = await lore.indexing.bulk("PUSH", connection!, { documents: batch.map((b) => b.document) }, credential)
      results.push(...reply.results)
      failed.push(...reply.failed)
    } catch (error) {
      // A whole request refused (too large, say) fails its documents, not the run; a wrong credential ends it.
      if (!(error instanceof LoreApiError) || error.status === 401) throw error
      failed.push(...batch.map((b) => ({ externalId: b.externalId, code: error.code, detail: error.detail })))
    }
    batch = []
    batchBytes = 0
  }
  for (const item of toSend) {
    if (batch.length >= BATCH_DOCUMENTS || (batch.length > 0 && batchBytes + item.body.length > BATCH_BYTES)) await flush()
    batch.push(item)
    batchBytes += item.body.length
  }
  await flush()

  // 4. Deletions: the connection's documents that are not admitted files of the folder any more.
  const keep = new Set(admitted)
  const gone = [...live].filter((id) => !keep.has(id))
  for (let at = 0; at < gone.length; at += 500) {
    results.push(...(await lore.indexing.bulk("PUSH", connection!, { deletes: gone.slice(at, at + 500) }, credential)).results)
  }

  // 5. Groups removed from acl.yaml: an empty membership, so nobody reads anything through them.
  const removedGroups = (previous?.groups ?? []).filter((id) => !acl!.groups.has(id))
  for (const id of removedGroups) await lore.indexing.pushGroup("PUSH", connection!, id, { members: {} }, credential)

  // The checkpoint keeps only what the server accepted, so a failed file is sent again next time.
  const failedIds = new Set(failed.flatMap((f) => f.externalId === null ? [] : [f.externalId]))
  const state: State = { connection: connection!, groups: [...acl!.groups.keys()], digests: Object.fromEntries(Object.entries(digests).filter(([path]) => !failedIds.has(path))) }
  writeFileSync(statePath, `${JSON.stringify(state, null, 2)}\n`)

  const count = (outcome: PushResult["outcome"] | "NOT_FOUND") => results.filter((r) => r.outcome === outcome).length
  const summary = {
    connection,
    files: files.length,
    skipped: admitted.length - toSend.length,
    unmatched,
    groups: acl!.groups.size,
    emptiedGroups: removedGroups,
    outcomes: { MATERIALIZED: count("MATERIALIZED"), ROTATED: count("ROTATED"), REMATERIALIZED: count("REMATERIALIZED"), UNCHANGED: count("UNCHANGED"), RETIRED: count("RETIRED") },
    results: results.map((r) => ({ externalId: r.externalId, outcome: r.outcome, sourceId: r.sourceId })),
    failed
  }
  if (values.json) console.log(JSON.stringify(summary, null, 2))
  else {
    console.log(`${connection}: ${files.length} Markdown files, ${summary.skipped} unchanged since the last run (not sent), ${summary.groups} groups`)
    for (const [outcome, n] of Object.entries(summary.outcomes)) if (n > 0) console.log(`  ${outcome.padEnd(15)} ${n}`)
    for (const path of unmatched) console.log(`  no rule in acl.yaml admits ${path}: not pushed`)
    for (const f of failed) console.log(`  FAILED ${f.externalId}: ${f.code} ${f.detail}`)
  }
  if (failed.length > 0) process.exitCode = 1
} catch (error) {
  if (error instanceof LoreApiError) fail(`${error.code}: ${error.detail} (request ${error.requestId})`, error.status === 401 ? 3 : 1)
  throw error
}
