import { LoreApiError } from "./errors"
import type { AssetType, CapabilityPackBody, PromptTemplateBody, SkillInspection, WorkInstructionBody } from "./generated/openapi"

/**
 * What an asset's `payload` holds, by asset type, from the OpenAPI components the server publishes. On the wire
 * `payload` stays a string of JSON text (the contract fixes it so); these types give SDK authors checking of
 * what is inside. A SKILL's payload is written by the server from its package (its inspection).
 */
export interface AssetPayloads {
  readonly PROMPT_TEMPLATE: PromptTemplateBody
  readonly WORK_INSTRUCTION: WorkInstructionBody
  readonly CAPABILITY_PACK: CapabilityPackBody
  readonly SKILL: SkillInspection
}

// Every asset type has its payload type: a type added to the API without one fails to compile here.
type EveryType = [AssetType] extends [keyof AssetPayloads] ? ([keyof AssetPayloads] extends [AssetType] ? true : never) : never
const everyType: EveryType = true
void everyType

/** The payload of an asset of type `T`. */
export type AssetPayload<T extends AssetType> = AssetPayloads[T]

/** The largest payload text `parse` reads: the server's limit for a draft is well under it. */
const MAX_PAYLOAD_CHARS = 4 * 1024 * 1024

/**
 * `lore.assets.payload`: an asset's payload text as its type's body, and back. Typed only: nothing here checks
 * the body against its schema (the server does, answering 422 INVALID_ASSET_CONTENT with errors[] per field).
 */
export const assetPayload = {
  /** `JSON.parse` of a payload, typed by the asset's type; INVALID_ARGUMENT when the text is not a JSON object. */
  parse<T extends AssetType>(type: T, text: string): AssetPayloads[T] {
    if (typeof text !== "string" || text.length > MAX_PAYLOAD_CHARS) throw LoreApiError.invalidArgument(`A ${type} payload is JSON text of at most ${MAX_PAYLOAD_CHARS} characters`)
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw LoreApiError.invalidArgument(`The ${type} payload is not JSON text`)
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw LoreApiError.invalidArgument(`The ${type} payload is not a JSON object`)
    return body as AssetPayloads[T]
  },

  /** The payload text to send as a draft's `payload`, from the body of the asset's type. */
  stringify<T extends AssetType>(_type: T, body: AssetPayloads[T]): string {
    return JSON.stringify(body)
  }
}
