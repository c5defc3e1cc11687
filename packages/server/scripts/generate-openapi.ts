import { OpenApi } from "@effect/platform"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { LoreApi } from "../src/http/Api"

/** Writes spec/openapi.json from the server's HttpApi; `npm run gen` then regenerates the SDK types. */
export const openApiDocument = () => JSON.stringify(OpenApi.fromApi(LoreApi), null, 2) + "\n"

const target = fileURLToPath(new URL("../../../spec/openapi.json", import.meta.url))
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(target, openApiDocument())
  console.log(`wrote ${target}`)
}
