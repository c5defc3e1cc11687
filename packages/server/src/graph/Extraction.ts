import { createHash } from "node:crypto"
import nlp from "compromise"
import { Effect, ParseResult, Schema } from "effect"
import { ChatError, type ChatRequest } from "../ai/ChatTypes"

/**
 * Graph extraction from one chunk: entities (name, type, description) and relations between them (source,
 * target, type, description, keywords, weight), by name. LOCAL is deterministic and offline (compromise's
 * named-entity tagger, co-occurrence within a sentence); LLM asks the GRAPH_EXTRACTION route for structured
 * output validated against `ChunkExtraction`, then one gleaning pass for what it missed.
 */
export const ExtractedEntity = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(60)),
  description: Schema.String.pipe(Schema.maxLength(2000))
})
export const ExtractedRelation = Schema.Struct({
  source: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  target: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  type: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(60)),
  description: Schema.String.pipe(Schema.maxLength(2000)),
  keywords: Schema.Array(Schema.String.pipe(Schema.maxLength(60))),
  weight: Schema.Number.pipe(Schema.between(0, 100))
})
export const ChunkExtraction = Schema.Struct({
  entities: Schema.Array(ExtractedEntity),
  relations: Schema.Array(ExtractedRelation)
})
export type ChunkExtraction = typeof ChunkExtraction.Type

export const ENTITY_TYPES = ["PERSON", "ORGANIZATION", "LOCATION", "TOPIC"] as const
export const LOCAL_EXTRACTOR = "LOCAL"
export const LLM_EXTRACTOR = "LLM"
export const PROMPT_VERSION = "graph-extraction-1"
export const LOCAL_VERSION = "compromise-14.17.0-cooccurrence-1"

/** The processing profile's identity: its sha256 over the canonical JSON of what shapes the output. */
export interface ProcessingProfile {
  readonly extractor: string
  readonly gatewayId: string | null
  readonly modelId: string
  readonly promptVersion: string
  readonly entityTypes: ReadonlyArray<string>
}
export const profileSha256 = (profile: ProcessingProfile) =>
  createHash("sha256")
    .update(JSON.stringify({
      extractor: profile.extractor,
      gatewayId: profile.gatewayId,
      modelId: profile.modelId,
      promptVersion: profile.promptVersion,
      entityTypes: [...profile.entityTypes].sort()
    }))
    .digest("hex")

/** Merge key of an entity name: Unicode-normalized, case-folded, whitespace collapsed, a leading article and edge punctuation dropped. */
export const normalizeName = (name: string) =>
  name.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim()
    .replace(/^(the|a|an) /, "")
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")

/** The name as shown: whitespace collapsed and edge punctuation dropped (compromise keeps a sentence's final period on "NASA."). */
const displayName = (name: string) => name.replace(/\s+/g, " ").trim().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
export const normalizeType = (type: string) => type.trim().toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "") || "TOPIC"

const MAX_LOCAL_ENTITIES = 24
const clip = (text: string, max: number) => (text.length <= max ? text : text.slice(0, max - 1).trimEnd() + "…")

/**
 * The offline extractor: compromise tags people, places and organizations (and other proper nouns, as TOPIC)
 * sentence by sentence; an entity's description is the first sentence naming it; two entities named in one
 * sentence are related (CO_OCCURS_WITH), weighted by the number of such sentences, with the sentence's verbs
 * (infinitive) as keywords.
 */
export const extractLocal = (text: string): ChunkExtraction => {
  const entities = new Map<string, { name: string; type: string; description: string }>()
  const pairs = new Map<string, { source: string; target: string; weight: number; description: string; keywords: Set<string> }>()
  // One parse of the chunk; each sentence is a view of it (parsing sentence by sentence again cost 3x).
  const sentences: Array<any> = []
  const parsed = nlp(text)
  // Lemmas for the relation keywords, computed once (verbs().json() per sentence was 2/3 of the time).
  parsed.compute("root")
  parsed.sentences().forEach((view: any) => {
    sentences.push(view)
  })
  for (const doc of sentences) {
    const sentence = { text: doc.text() as string }
    const found: Array<{ name: string; type: string }> = []
    const take = (matches: Array<string>, type: string) => {
      for (const raw of matches) {
        const name = displayName(raw)
        const key = normalizeName(name)
        if (key.length < 2 || found.some((f) => normalizeName(f.name) === key)) continue
        found.push({ name, type })
      }
    }
    take(doc.people().out("array") as Array<string>, "PERSON")
    take(doc.organizations().out("array") as Array<string>, "ORGANIZATION")
    take(doc.places().out("array") as Array<string>, "LOCATION")
    take(doc.match("#ProperNoun+").not("#Pronoun").out("array") as Array<string>, "TOPIC")
    const here: Array<string> = []
    for (const entity of found) {
      const key = `${normalizeName(entity.name)}\u0000${entity.type}`
      if (!entities.has(key)) {
        if (entities.size >= MAX_LOCAL_ENTITIES) continue
        entities.set(key, { name: entity.name, type: entity.type, description: clip(sentence.text.trim(), 400) })
      }
      here.push(key)
    }
    const verbs = (doc.match("#Verb").not("(#Auxiliary|#Copula|#Modal)").json({ terms: { root: true } }) as Array<{ terms: Array<{ root?: string; normal?: string }> }>)
      .flatMap((match) => match.terms.map((term) => (term.root ?? term.normal ?? "").toLowerCase().trim()))
      .filter((verb) => verb.length > 1)
    for (let i = 0; i < here.length; i++) {
      for (let j = i + 1; j < here.length; j++) {
        const [a, b] = [here[i]!, here[j]!].sort() as [string, string]
        const pair = `${a}\u0001${b}`
        const existing = pairs.get(pair)
        if (existing) {
          existing.weight += 1
          verbs.forEach((verb) => existing.keywords.add(verb))
        } else {
          pairs.set(pair, { source: entities.get(a)!.name, target: entities.get(b)!.name, weight: 1, description: clip(sentence.text.trim(), 400), keywords: new Set(verbs) })
        }
      }
    }
  }
  return {
    entities: [...entities.values()],
    relations: [...pairs.values()].map((pair) => ({
      source: pair.source, target: pair.target, type: "CO_OCCURS_WITH", description: pair.description,
      keywords: [...pair.keywords].slice(0, 8), weight: pair.weight
    }))
  }
}

/** The JSON schema the model must answer with (structured output). */
export const EXTRACTION_JSON_SCHEMA = {
  name: "graph_extraction",
  schema: {
    type: "object",
    additionalProperties: false,
    required: ["entities", "relations"],
    properties: {
      entities: {
        type: "array",
        items: {
          type: "object", additionalProperties: false, required: ["name", "type", "description"],
          properties: { name: { type: "string" }, type: { type: "string" }, description: { type: "string" } }
        }
      },
      relations: {
        type: "array",
        items: {
          type: "object", additionalProperties: false, required: ["source", "target", "type", "description", "keywords", "weight"],
          properties: {
            source: { type: "string" }, target: { type: "string" }, type: { type: "string" }, description: { type: "string" },
            keywords: { type: "array", items: { type: "string" } }, weight: { type: "number" }
          }
        }
      }
    }
  }
}

const systemPrompt = (entityTypes: ReadonlyArray<string>) =>
  `You extract a knowledge graph from one passage of a document. Entities have a name, a type (one of ${entityTypes.join(", ")}) ` +
  "and a one-sentence description from the passage. Relations connect two extracted entities by name, with a short UPPER_SNAKE type, " +
  "a description, keywords and a weight from 1 (weak) to 10 (strong). Use only what the passage states. Answer with JSON only."

export const extractionRequest = (text: string, entityTypes: ReadonlyArray<string>): ChatRequest => ({
  messages: [{ role: "system", content: systemPrompt(entityTypes) }, { role: "user", content: text }],
  responseSchema: EXTRACTION_JSON_SCHEMA
})

/** The gleaning pass: the first answer, then a request for what it missed (answered in the same schema). */
export const gleaningRequest = (text: string, entityTypes: ReadonlyArray<string>, first: string): ChatRequest => ({
  messages: [
    { role: "system", content: systemPrompt(entityTypes) },
    { role: "user", content: text },
    { role: "assistant", content: first },
    { role: "user", content: "Some entities or relations may have been missed. Answer with only the ones missing from your previous answer (empty arrays if none)." }
  ],
  responseSchema: EXTRACTION_JSON_SCHEMA
})

const decodeExtraction = Schema.decodeUnknown(Schema.parseJson(ChunkExtraction))

/** A model's answer validated against the schema; anything else is a BAD_RESPONSE naming the failing paths. */
export const parseModelExtraction = (text: string) =>
  decodeExtraction(text).pipe(
    Effect.mapError((error) => new ChatError({
      code: "BAD_RESPONSE",
      message: `The graph extraction does not match its schema: ${ParseResult.ArrayFormatter.formatErrorSync(error).slice(0, 3).map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ")}`
    }))
  )

/** Both passes merged: names and types normalized, duplicates (same normalized name and type, or relation) kept once. */
export const mergeExtractions = (parts: ReadonlyArray<ChunkExtraction>): ChunkExtraction => {
  const entities = new Map<string, { name: string; type: string; description: string }>()
  const relations = new Map<string, ChunkExtraction["relations"][number]>()
  for (const part of parts) {
    for (const entity of part.entities) {
      const name = displayName(entity.name)
      if (normalizeName(name) === "") continue
      const key = `${normalizeName(name)}\u0000${normalizeType(entity.type)}`
      if (!entities.has(key)) entities.set(key, { name, type: normalizeType(entity.type), description: entity.description.trim() })
    }
    for (const relation of part.relations) {
      const key = `${normalizeName(relation.source)}\u0000${normalizeName(relation.target)}\u0000${normalizeType(relation.type)}`
      if (!relations.has(key)) relations.set(key, { ...relation, type: normalizeType(relation.type) })
    }
  }
  return { entities: [...entities.values()], relations: [...relations.values()] }
}
