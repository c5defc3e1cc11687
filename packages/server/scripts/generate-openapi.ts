import { OpenApi } from "@effect/platform"
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { LoreApi } from "../src/http/Api"
import { errorsDocument } from "./errors-doc"

/** Writes spec/openapi.json from the server's HttpApi, and docs/errors.md from its error classes; `npm run gen` then regenerates the SDK types. */
export const openApiDocument = () => JSON.stringify(OpenApi.fromApi(LoreApi), null, 2) + "\n"
export const errorCodesDocument = () => errorsDocument(OpenApi.fromApi(LoreApi))

const target = fileURLToPath(new URL("../../../spec/openapi.json", import.meta.url))
const errorsTarget = fileURLToPath(new URL("../../../docs/errors.md", import.meta.url))
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(target, openApiDocument())
  writeFileSync(errorsTarget, errorCodesDocument())
  console.log(`wrote ${target} and ${errorsTarget}`)
}
