import Mustache from "mustache"
import type { FieldError } from "../domain/Errors"
import { sha256Digest } from "./Digest"
import { type PromptTemplateBody, variableProblem } from "./Payloads"

export type RenderOutcome =
  | { readonly ok: true; readonly systemInstruction: string; readonly userPrompt: string; readonly sensitiveVariables: ReadonlyArray<string>; readonly inputShapeDigest: string }
  | { readonly ok: false; readonly errors: ReadonlyArray<FieldError> }

/** Prompts are not HTML: values go in as they are. */
const noEscape = (value: unknown) => String(value)

/**
 * Checks variables against the template's declarations and renders it (Mustache, HTML escaping off). Errors
 * name the variable (`variables.<name>`) and the rule, never the value, which may be sensitive. Nothing here
 * logs or stores a value. `inputShapeDigest` digests the shape of the input (which variables were supplied,
 * with their types), not the values, so runs with the same shape can be grouped without keeping any input.
 */
export const renderPrompt = (body: PromptTemplateBody, releaseDigest: string, variables: Readonly<Record<string, unknown>>): RenderOutcome => {
  const errors: Array<FieldError> = []
  const declared = new Map(body.variables.map((variable) => [variable.name, variable]))
  for (const name of Object.keys(variables)) {
    if (!declared.has(name)) errors.push({ path: `variables.${name}`, message: "is not a variable of this template" })
  }
  const view: Record<string, unknown> = {}
  for (const variable of body.variables) {
    const given = variables[variable.name]
    const value = given === undefined || given === null ? variable.defaultValue ?? undefined : given
    if (value === undefined || value === null) {
      if (variable.required) errors.push({ path: `variables.${variable.name}`, message: "is required" })
      view[variable.name] = ""
      continue
    }
    const problem = variableProblem(variable, value)
    if (problem) errors.push({ path: `variables.${variable.name}`, message: problem })
    view[variable.name] = value
  }
  if (errors.length > 0) return { ok: false, errors }
  const render = (template: string) => Mustache.render(template, view, {}, { escape: noEscape })
  const shape = body.variables
    .map((variable) => ({ name: variable.name, type: variable.type, supplied: variables[variable.name] !== undefined && variables[variable.name] !== null }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return {
    ok: true,
    systemInstruction: render(body.systemInstruction),
    userPrompt: render(body.userTemplate),
    sensitiveVariables: body.variables.filter((variable) => variable.sensitive).map((variable) => variable.name),
    inputShapeDigest: sha256Digest({ releaseDigest, variables: shape })
  }
}
