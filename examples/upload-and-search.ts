import { createLoreClient, LoreApiError } from "@lore/sdk"
import { uploadFile } from "@lore/sdk/node"

const [path, question] = process.argv.slice(2)
if (!path || !question) {
  console.error("usage: tsx examples/upload-and-search.ts <file> <question>")
  process.exit(2)
}

const lore = createLoreClient({ baseUrl: process.env.LORE_SERVER ?? "http://127.0.0.1:8787", token: process.env.LORE_TOKEN })

try {
  const [space] = await lore.knowledgeSpaces.uploadTargets()
  if (!space) throw new Error("You may not upload to any knowledge space")
  const source = await uploadFile(lore, path, {
    knowledgeSpaceId: space.id,
    classification: "INTERNAL",
    onProgress: (sent, total) => process.stderr.write(`\ruploading ${sent}/${total ?? "?"} bytes`)
  })
  process.stderr.write(`\nindexing ${source.title} (version ${source.versionNumber})...\n`)
  const settled = await lore.sources.waitUntilSettled(source.id)
  if (settled.status !== "READY") throw new Error(`${settled.failureCode}: ${settled.failureMessage}`)

  const { evidence, mode } = await lore.knowledge.search({ q: question, limit: 3 })
  console.log(`${evidence.length} passages (${mode} search):`)
  for (const item of evidence) {
    const pages = item.startPage === null ? "" : ` p.${item.startPage}${item.endPage !== item.startPage ? `-${item.endPage}` : ""}`
    console.log(`\n[${item.citationId}] ${item.title}${item.heading ? ` › ${item.heading}` : ""}${pages}`)
    console.log(item.content.slice(0, 300))
  }
} catch (error) {
  if (error instanceof LoreApiError) console.error(`${error.code}: ${error.detail} (request ${error.requestId})`)
  else console.error(error)
  process.exit(1)
}
