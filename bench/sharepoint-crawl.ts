/**
 * The SHAREPOINT kind's crawl (issue 30, point 12): 100,000 files (SP_BENCH_FILES) in one document library of a
 * loopback Graph that makes its delta pages on the fly (200 items a page, nothing held), walked step by step through
 * `crawlSharePoint` as the framework calls it: each file's permissions and bytes fetched over the guarded fetch, a
 * token from msal-node. Prints files per second and the heap after each 10% (flat when pages are streamed: the kind
 * keeps only the current page and its delta token). Lore's ingestion (parsing, chunking, embedding, SQL) is not
 * included: it is the same for every kind and measured in bench/connectors.ts. Asserts nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Settings } from "../packages/server/src/Config"
import { crawlSharePoint } from "../packages/server/src/connectors/sharepoint/Crawl"
import { crawlSteps } from "./lib/crawl-steps"

export const description = "SharePoint crawl: files/s and heap over 100,000 files from a loopback Graph (delta pages streamed)"

const FILES = Number(process.env.SP_BENCH_FILES ?? 100_000)
const PAGE = 200
const TENANT = "0b1c2d3e-0000-4000-8000-00000000aaaa"
const CLIENT = "c11e0000-0000-4000-8000-00000000cccc"
const SITE = "127.0.0.1,11111111-1111-4111-8111-111111111111,22222222-2222-4222-8222-222222222222"
const GROUP = "aaaaaaaa-0000-4000-8000-000000000001"

const certificate = () => {
  const dir = mkdtempSync(join(tmpdir(), "lore-bench-cert-"))
  try {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "k.pem"), "-out", join(dir, "c.pem"), "-days", "1", "-subj", "/CN=bench"], { stdio: "ignore" })
    return { certificatePem: readFileSync(join(dir, "c.pem"), "utf8"), privateKeyPem: readFileSync(join(dir, "k.pem"), "utf8") }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const startGraph = async () => {
  let base = ""
  const json = (res: ServerResponse, body: unknown) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify(body))
  }
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", base)
    const path = decodeURIComponent(url.pathname)
    if (path.endsWith("/oauth2/v2.0/token")) {
      req.resume()
      return req.on("end", () => json(res, { token_type: "Bearer", expires_in: 3599, access_token: `bench-${Math.random()}` }))
    }
    if (path === `/v1.0/sites/${SITE}`) return json(res, { id: SITE, name: "eng", displayName: "Engineering", webUrl: `${base}/sites/eng` })
    if (path === `/v1.0/sites/${SITE}/drives`) return json(res, { value: [{ id: "b!bench", name: "Documents", webUrl: `${base}/drives/b!bench` }] })
    if (path === "/v1.0/drives/b!bench/root/delta") {
      const skip = Number(url.searchParams.get("skip") ?? 0)
      const value = Array.from({ length: Math.max(0, Math.min(PAGE, FILES - skip)) }, (_, i) => ({
        id: `item${skip + i}`, name: `File ${skip + i}.txt`, size: 900, file: { mimeType: "text/plain" }, parentReference: { driveId: "b!bench" }
      }))
      const next = skip + PAGE < FILES
      return json(res, { value, ...(next ? { "@odata.nextLink": `${base}/v1.0/drives/b!bench/root/delta?skip=${skip + PAGE}` } : { "@odata.deltaLink": `${base}/v1.0/drives/b!bench/root/delta?token=1` }) })
    }
    const item = /^\/v1\.0\/drives\/b!bench\/items\/(item\d+)\/(permissions|content)$/.exec(path)
    if (item?.[2] === "permissions") {
      return json(res, { value: [{ id: "p1", roles: ["read"], grantedToV2: { group: { id: GROUP, displayName: "Engineering" } } }, { id: "p2", roles: ["owner"], grantedToV2: { user: { id: "u-ann", displayName: "Ann" } } }] })
    }
    if (item?.[2] === "content") {
      res.writeHead(200, { "content-type": "text/plain" })
      return res.end(`${item[1]}: ${"The quarterly planning notes for the engineering team. ".repeat(16)}`)
    }
    if (path === `/v1.0/groups/${GROUP}/transitiveMembers/microsoft.graph.user`) return json(res, { value: [{ id: "u-ann", mail: "ann@example.com" }, { id: "u-ben", mail: "ben@example.com" }] })
    res.writeHead(404).end()
  }
  const server = createServer(handle)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, host: base.slice("http://".length), close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

export default async () => {
  const graph = await startGraph()
  const settings = Settings.make({ dataDir: tmpdir(), allowedPrivateHosts: [graph.host], connectorBaseUrls: { graph: graph.base, login: graph.base } })
  const context = {
    sourceConfig: { tenantId: TENANT, clientId: CLIENT, sharepointHost: graph.base, sites: [SITE] },
    credential: JSON.stringify(certificate()),
    settings
  }
  try {
    await crawlSteps(crawlSharePoint, context, { unit: "files", expected: FILES, note: "permissions + bytes each" })
  } finally {
    await graph.close()
  }
}
