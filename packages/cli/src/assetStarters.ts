import type { AssetType } from "@lore/sdk"
import { CliError, type CliFieldError, ExitCode } from "./errors"

/** A valid first payload for the types that can start without one (a pack needs its items: --payload). */
export const starters: Partial<Record<AssetType, Record<string, unknown>>> = {
  PROMPT_TEMPLATE: {
    objective: "What the prompt is for",
    audience: "Who uses it",
    systemInstruction: "You are a careful assistant.",
    userTemplate: "Answer about {{topic}}.",
    variables: [{ name: "topic", type: "STRING", required: true, sensitive: false }],
    outputContract: {},
    knowledgeRequirements: [],
    knownLimitations: ""
  },
  WORK_INSTRUCTION: {
    purpose: "What the instruction achieves",
    audience: "Who follows it",
    prerequisites: [],
    completionOutcome: "What is true when done",
    responsibleRole: "Who answers for it",
    steps: [{ key: "first", title: "First step", instruction: "Do the first thing" }]
  }
}

/** The fields of each starter that only say what to write (a person must replace them; the others are usable as they are). */
const placeholderPaths: Partial<Record<AssetType, ReadonlyArray<string>>> = {
  PROMPT_TEMPLATE: ["objective", "audience"],
  WORK_INSTRUCTION: ["purpose", "audience", "completionOutcome", "responsibleRole", "steps[0].title", "steps[0].instruction"]
}

const at = (value: unknown, path: string): unknown =>
  path.split(/\.|\[(\d+)\]/).filter((part) => part !== undefined && part !== "").reduce<unknown>((node, key) => (node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined), value)

/**
 * The fields of a draft's payload that still hold the starter text `lore assets new` wrote ("Do the first thing"):
 * such a draft is not submitted or released (issue 33.7).
 */
export const starterLeftovers = (type: AssetType, payloadText: string): ReadonlyArray<CliFieldError> => {
  const starter = starters[type]
  if (!starter) return []
  let payload: unknown
  try {
    payload = JSON.parse(payloadText)
  } catch {
    return []
  }
  return (placeholderPaths[type] ?? [])
    .map((path) => [path, at(starter, path)] as const)
    .filter(([path, text]) => typeof text === "string" && at(payload, path) === text)
    .map(([path, text]) => ({ path: `payload.${path}`, message: `still holds the starter text "${String(text)}"` }))
}

export const refuseStarterText = (type: AssetType, payloadText: string, ref: string) => {
  const leftovers = starterLeftovers(type, payloadText)
  if (leftovers.length > 0) {
    throw new CliError(ExitCode.invalid, "STARTER_TEXT", `the draft still holds the starter text of 'lore assets new' in ${leftovers.length} field${leftovers.length === 1 ? "" : "s"}`, 0, undefined, `Write them with 'lore assets edit ${ref}' (or pull, edit and push).`, leftovers)
  }
}
