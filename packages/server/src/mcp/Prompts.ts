import { Effect } from "effect"
import { quoteInput } from "../domain/Echo"
import type { Principal } from "../domain/Principal"
import { Delivery } from "../assets/Delivery"
import type { PromptVariable } from "../assets/Payloads"
import { AssetTools } from "../assets/Tools"

/**
 * Every released PROMPT_TEMPLATE the caller may use, as an MCP prompt named `namespace.slug` (a slug has no dot,
 * so the name splits at its last dot) on the template's latest available release. Its arguments are the
 * template's variables. A withdrawn release is no longer listed (the server keeps no session, so clients see
 * the change on their next prompts/list). Getting a prompt renders it exactly like prompt_render (audited
 * as asset.prompt.render).
 */

export interface PromptArgument {
  readonly name: string
  readonly description?: string
  readonly required: boolean
}

const describe = (variable: PromptVariable) =>
  [
    variable.description,
    variable.type === "ENUM" ? `one of: ${variable.allowedValues.join(", ")}` : variable.type === "DATE" ? "a date YYYY-MM-DD" : variable.type === "STRING" ? undefined : variable.type.toLowerCase(),
    variable.defaultValue !== undefined && variable.defaultValue !== null ? `default: ${String(variable.defaultValue)}` : undefined,
    variable.sensitive ? "sensitive: never logged or stored" : undefined
  ].filter((part) => part !== undefined && part !== "").join("; ")

/** MCP prompt arguments are strings: NUMBER and BOOLEAN variables are read from their text (left alone if they do not parse). */
const coerce = (variable: PromptVariable | undefined, value: string): unknown => {
  if (variable?.type === "NUMBER" && value.trim() !== "" && Number.isFinite(Number(value))) return Number(value)
  if (variable?.type === "BOOLEAN" && (value === "true" || value === "false")) return value === "true"
  return value
}

export const makePrompts = Effect.gen(function* () {
  const tools = yield* AssetTools
  const delivery = yield* Delivery

  const released = (caller: Principal) =>
    Effect.flatMap(tools.recommendations(caller, { type: "PROMPT_TEMPLATE" }), ({ recommendations }) =>
      Effect.map(
        Effect.forEach(recommendations, (asset) =>
          delivery.deliverable(caller, asset.assetId, asset.releaseId, "PROMPT_TEMPLATE").pipe(
            Effect.map(({ body }) => [{ asset, body }]),
            // Withdrawn between the two reads: not listed, rather than failing the whole list.
            Effect.catchTags({ ReleaseWithdrawn: () => Effect.succeed([]), ReleaseNotFound: () => Effect.succeed([]), AssetNotFound: () => Effect.succeed([]) })
          ), { concurrency: 1 }),
        (found) => found.flat()))

  const list = (caller: Principal) =>
    Effect.map(released(caller), (prompts) => ({
      prompts: prompts
        .map(({ asset, body }) => ({
          name: `${asset.namespace}.${asset.slug}`,
          title: asset.title,
          description: `${body.objective} (${asset.namespace}/${asset.slug}@${asset.versionLabel}, release ${asset.releaseId})`,
          arguments: body.variables.map((variable): PromptArgument => {
            const description = describe(variable)
            return { name: variable.name, required: variable.required && (variable.defaultValue === undefined || variable.defaultValue === null), ...(description ? { description } : {}) }
          })
        }))
        .sort((a, b) => a.name.localeCompare(b.name))
    }))

  const get = (caller: Principal, name: string, args: Readonly<Record<string, string>>) =>
    Effect.gen(function* () {
      const found = (yield* released(caller)).find(({ asset }) => `${asset.namespace}.${asset.slug}` === name)
      if (!found) return yield* Effect.fail({ code: "PROMPT_NOT_FOUND", detail: `No released prompt template named ${quoteInput(name)} that you may use` })
      const declared = new Map(found.body.variables.map((variable) => [variable.name, variable]))
      const variables = Object.fromEntries(Object.entries(args).map(([key, value]) => [key, coerce(declared.get(key), value)]))
      const rendered = yield* delivery.render(caller, found.asset.assetId, found.asset.releaseId, variables)
      const text = [rendered.systemInstruction.trim(), rendered.userPrompt].filter((part) => part.length > 0).join("\n\n")
      return {
        description: found.body.objective,
        messages: [{ role: "user" as const, content: { type: "text" as const, text } }]
      }
    })

  return { list, get }
})
