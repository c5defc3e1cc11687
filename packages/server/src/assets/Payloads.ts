import Mustache from "mustache"
import { Either, ParseResult, Schema } from "effect"
import type { FieldError } from "../domain/Errors"

/**
 * The typed bodies an asset's `payload` string holds, one per type and schemaVersion (the first of every type
 * is "1"). Each is published as a JSON Schema in the OpenAPI document's components and in docs/decisions.md;
 * `validatePayload` reports every broken rule with a dotted path (`payload.variables.0.name`).
 */

const Text = (max: number) => Schema.String.pipe(Schema.maxLength(max))
const Line = (max: number) => Schema.String.pipe(Schema.pattern(/\S/, { message: () => "must not be blank" }), Schema.maxLength(max))
const Uuid = Schema.UUID

export const PromptVariableType = Schema.Literal("STRING", "NUMBER", "BOOLEAN", "ENUM", "DATE").annotations({
  identifier: "PromptVariableType",
  description: "DATE values are YYYY-MM-DD"
})
export type PromptVariableType = typeof PromptVariableType.Type

export const PromptVariable = Schema.Struct({
  name: Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, { message: () => "must be a letter or _ followed by letters, digits or _ (at most 64)" })),
  type: PromptVariableType,
  required: Schema.Boolean,
  defaultValue: Schema.optionalWith(Schema.Unknown, { nullable: true }).annotations({ description: "A value of the variable's type, or null" }),
  sensitive: Schema.Boolean.annotations({ description: "Sensitive values are never logged, stored or audited" }),
  pattern: Schema.optionalWith(Text(500), { nullable: true }).annotations({ description: "A JavaScript regular expression STRING values must match" }),
  allowedValues: Schema.optionalWith(Schema.Array(Text(200)), { default: () => [] }).annotations({ description: "The values of an ENUM variable" }),
  description: Schema.optional(Text(1000))
}).annotations({ identifier: "PromptVariable" })
export type PromptVariable = typeof PromptVariable.Type

export const PromptTemplateBody = Schema.Struct({
  objective: Line(2000),
  audience: Line(1000),
  systemInstruction: Text(20_000),
  userTemplate: Line(50_000).annotations({ description: "{{variable}} placeholders, rendered with HTML escaping off" }),
  variables: Schema.Array(PromptVariable).pipe(Schema.maxItems(100)),
  outputContract: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { default: () => ({}) }),
  knowledgeRequirements: Schema.optionalWith(Schema.Array(Text(1000)), { default: () => [] }),
  knownLimitations: Schema.optionalWith(Text(5000), { default: () => "" })
}).annotations({ identifier: "PromptTemplateBody", description: "PROMPT_TEMPLATE payload, schemaVersion 1" })
export type PromptTemplateBody = typeof PromptTemplateBody.Type

export const Step = Schema.Struct({
  key: Line(100),
  title: Line(300),
  instruction: Line(10_000),
  expectedResult: Schema.optionalWith(Text(2000), { default: () => "" }),
  check: Schema.optionalWith(Text(2000), { default: () => "" }),
  escalation: Schema.optionalWith(Text(2000), { default: () => "" }),
  prohibitedActions: Schema.optionalWith(Schema.Array(Text(1000)), { default: () => [] }),
  relatedAssetIds: Schema.optionalWith(Schema.Array(Uuid), { default: () => [] }),
  relatedKnowledgeVersionIds: Schema.optionalWith(Schema.Array(Uuid), { default: () => [] })
}).annotations({ identifier: "Step" })

export const WorkInstructionBody = Schema.Struct({
  purpose: Line(2000),
  audience: Line(1000),
  prerequisites: Schema.optionalWith(Schema.Array(Text(1000)), { default: () => [] }),
  completionOutcome: Line(2000),
  responsibleRole: Line(200),
  steps: Schema.Array(Step).pipe(Schema.minItems(1), Schema.maxItems(200))
}).annotations({ identifier: "WorkInstructionBody", description: "WORK_INSTRUCTION payload, schemaVersion 1" })
export type WorkInstructionBody = typeof WorkInstructionBody.Type

export const PackPurpose = Schema.Literal("ROLE_ONBOARDING", "TEAM_ONBOARDING", "SKILL_DEVELOPMENT", "COMPLIANCE", "PROCESS_CHANGE").annotations({ identifier: "PackPurpose" })

export const PackItemKind = Schema.Literal("ASSET_RELEASE", "KNOWLEDGE_VERSION").annotations({ identifier: "PackItemKind" })

export const PackItemSpec = Schema.Struct({
  itemKey: Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, { message: () => "must be letters, digits, '.', '_' or '-' (at most 100)" })),
  title: Line(300),
  kind: PackItemKind,
  assetId: Schema.optionalWith(Uuid, { nullable: true }),
  releaseId: Schema.optionalWith(Uuid, { nullable: true }),
  knowledgeAssetId: Schema.optionalWith(Uuid, { nullable: true }),
  versionNumber: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { nullable: true }),
  required: Schema.Boolean,
  order: Schema.Int
}).annotations({ identifier: "PackItemSpec", description: "ASSET_RELEASE items name assetId and releaseId; KNOWLEDGE_VERSION items knowledgeAssetId and versionNumber" })
export type PackItemSpec = typeof PackItemSpec.Type

export const CapabilityPackBody = Schema.Struct({
  purpose: PackPurpose,
  audience: Line(1000),
  prerequisites: Schema.optionalWith(Schema.Array(Text(1000)), { default: () => [] }),
  expectedOutcome: Line(2000),
  completionCriteria: Schema.optionalWith(Schema.Array(Text(1000)), { default: () => [] }),
  reviewDate: Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, { message: () => "must be a date YYYY-MM-DD" })),
  ownerUserId: Uuid,
  items: Schema.Array(PackItemSpec).pipe(Schema.minItems(1), Schema.maxItems(200))
}).annotations({ identifier: "CapabilityPackBody", description: "CAPABILITY_PACK payload, schemaVersion 1" })
export type CapabilityPackBody = typeof CapabilityPackBody.Type

/** The payload schema of each type, by schemaVersion. SKILL payloads come from packages (a later issue). */
export const payloadSchemas = {
  PROMPT_TEMPLATE: { "1": PromptTemplateBody },
  WORK_INSTRUCTION: { "1": WorkInstructionBody },
  CAPABILITY_PACK: { "1": CapabilityPackBody }
} as const
export type TypedAssetType = keyof typeof payloadSchemas

/** The schemas the OpenAPI document publishes as components. */
export const publishedPayloadSchemas = [PromptTemplateBody, WorkInstructionBody, CapabilityPackBody]

const fieldErrors = (prefix: string, error: ParseResult.ParseError): Array<FieldError> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: [prefix, ...issue.path.map(String)].join("."),
    message: issue.message
  }))

/** The placeholders a template names, sections included. */
export const templateNames = (template: string): Array<string> => {
  const names: Array<string> = []
  const walk = (tokens: ReadonlyArray<any>) => {
    for (const token of tokens) {
      if (token[0] === "name" || token[0] === "&" || token[0] === "#" || token[0] === "^") names.push(token[1])
      if (Array.isArray(token[4])) walk(token[4])
    }
  }
  walk(Mustache.parse(template))
  return [...new Set(names)]
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/

/** Why a value does not fit a variable, or null. The message never quotes the value (it may be sensitive). */
export const variableProblem = (variable: PromptVariable, value: unknown): string | null => {
  switch (variable.type) {
    case "STRING":
      if (typeof value !== "string") return "must be a string"
      if (variable.pattern && !new RegExp(variable.pattern).test(value)) return "does not match the variable's pattern"
      return null
    case "NUMBER":
      return typeof value === "number" && Number.isFinite(value) ? null : "must be a finite number"
    case "BOOLEAN":
      return typeof value === "boolean" ? null : "must be true or false"
    case "ENUM":
      return typeof value === "string" && variable.allowedValues.includes(value) ? null : `must be one of the variable's allowedValues`
    case "DATE":
      return typeof value === "string" && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)) ? null : "must be a date YYYY-MM-DD"
  }
}

/** Rules of a prompt template beyond its shape: names unique, patterns valid, defaults fitting, placeholders declared. */
const promptRules = (body: PromptTemplateBody): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const seen = new Set<string>()
  body.variables.forEach((variable, i) => {
    const at = `payload.variables.${i}`
    if (seen.has(variable.name)) errors.push({ path: `${at}.name`, message: "is declared twice" })
    seen.add(variable.name)
    if (variable.pattern) {
      try {
        new RegExp(variable.pattern)
      } catch {
        errors.push({ path: `${at}.pattern`, message: "is not a valid regular expression" })
      }
    }
    if (variable.type === "ENUM" && variable.allowedValues.length === 0) errors.push({ path: `${at}.allowedValues`, message: "an ENUM variable needs allowedValues" })
    if (variable.defaultValue !== undefined && variable.defaultValue !== null && !errors.some((e) => e.path.startsWith(at))) {
      const problem = variableProblem(variable, variable.defaultValue)
      if (problem) errors.push({ path: `${at}.defaultValue`, message: problem })
    }
  })
  for (const [field, template] of [["systemInstruction", body.systemInstruction], ["userTemplate", body.userTemplate]] as const) {
    let names: Array<string>
    try {
      names = templateNames(template)
    } catch (error) {
      errors.push({ path: `payload.${field}`, message: `is not a valid template: ${error instanceof Error ? error.message : "unreadable"}` })
      continue
    }
    for (const name of names) {
      if (!seen.has(name)) errors.push({ path: `payload.${field}`, message: `uses {{${name}}}, which is not a declared variable` })
    }
  }
  return errors
}

const packRules = (body: CapabilityPackBody): Array<FieldError> => {
  const errors: Array<FieldError> = []
  const keys = new Set<string>()
  body.items.forEach((item, i) => {
    const at = `payload.items.${i}`
    if (keys.has(item.itemKey)) errors.push({ path: `${at}.itemKey`, message: "is used twice" })
    keys.add(item.itemKey)
    if (item.kind === "ASSET_RELEASE") {
      if (!item.assetId) errors.push({ path: `${at}.assetId`, message: "an ASSET_RELEASE item names the asset" })
      if (!item.releaseId) errors.push({ path: `${at}.releaseId`, message: "an ASSET_RELEASE item is pinned to a release" })
    } else {
      if (!item.knowledgeAssetId) errors.push({ path: `${at}.knowledgeAssetId`, message: "a KNOWLEDGE_VERSION item names the knowledge asset" })
      if (!item.versionNumber) errors.push({ path: `${at}.versionNumber`, message: "a KNOWLEDGE_VERSION item is pinned to a version number" })
    }
  })
  if (Number.isNaN(Date.parse(body.reviewDate))) errors.push({ path: "payload.reviewDate", message: "must be a date YYYY-MM-DD" })
  return errors
}

export type ValidatedPayload =
  | { readonly type: "PROMPT_TEMPLATE"; readonly body: PromptTemplateBody; readonly parsed: unknown }
  | { readonly type: "WORK_INSTRUCTION"; readonly body: WorkInstructionBody; readonly parsed: unknown }
  | { readonly type: "CAPABILITY_PACK"; readonly body: CapabilityPackBody; readonly parsed: unknown }

/**
 * Parses and checks a payload string for a type and schemaVersion: the decoded body, or every field error
 * (paths start at `payload`, or name `schemaVersion` or `type`).
 */
export const validatePayload = (type: string, schemaVersion: string, payload: string): Either.Either<ValidatedPayload, Array<FieldError>> => {
  const versions = (payloadSchemas as Record<string, Record<string, Schema.Schema<any, any>>>)[type]
  if (!versions) return Either.left([{ path: "type", message: `${type} assets cannot be created or edited here` }])
  const schema = versions[schemaVersion]
  if (!schema) return Either.left([{ path: "schemaVersion", message: `must be one of ${Object.keys(versions).join(", ")} for ${type}` }])
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    return Either.left([{ path: "payload", message: "is not valid JSON" }])
  }
  const decoded = Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty: "error" })(parsed)
  if (Either.isLeft(decoded)) return Either.left(fieldErrors("payload", decoded.left))
  const body = decoded.right
  const rules = type === "PROMPT_TEMPLATE" ? promptRules(body) : type === "CAPABILITY_PACK" ? packRules(body) : []
  if (rules.length > 0) return Either.left(rules)
  return Either.right({ type, body, parsed } as ValidatedPayload)
}

/** Decodes a payload already validated when it was stored (a release's, say). */
export const storedBody = <T extends TypedAssetType>(type: T, schemaVersion: string, payload: string) => {
  const result = validatePayload(type, schemaVersion, payload)
  if (Either.isLeft(result)) throw new Error(`stored ${type} payload does not validate`)
  return result.right.body as T extends "PROMPT_TEMPLATE" ? PromptTemplateBody : T extends "WORK_INSTRUCTION" ? WorkInstructionBody : CapabilityPackBody
}
