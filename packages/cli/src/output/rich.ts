import type { Runtime } from "../context"
import { renderPlain } from "./plain"
import { writeJson } from "./render"
import type { Block, Tone, View } from "./view"

/**
 * Views with inline styling, for output that mixes styles within one line (search results: a bold
 * title, a colored heading, the query's terms highlighted in a snippet). On a terminal Ink draws them
 * (output/knowledge.tsx); piped, they become the plain View blocks they extend, without escape codes.
 */
export interface Span {
  readonly text: string
  readonly tone?: Tone
  readonly bold?: boolean
}

export type RichBlock =
  | Block
  /** One line of differently styled runs. */
  | { readonly kind: "line"; readonly spans: ReadonlyArray<Span> }
  /** Text with the given terms emphasized (case-insensitive), indented by `indent` spaces. */
  | { readonly kind: "highlighted"; readonly text: string; readonly highlights: ReadonlyArray<string>; readonly indent?: number }
  | { readonly kind: "blank" }

export type RichView = ReadonlyArray<RichBlock>

export const plainView = (view: RichView): View =>
  view.map((block): Block => {
    switch (block.kind) {
      case "line":
        return { kind: "message", text: block.spans.map((span) => span.text).join("") }
      case "highlighted":
        return { kind: "message", text: " ".repeat(block.indent ?? 0) + block.text }
      case "blank":
        return { kind: "message", text: "" }
      default:
        return block
    }
  })

/** The Ink side of the knowledge commands, loaded only on a terminal (like render.ts loads ink.tsx). */
export const loadKnowledgeInk = async (runtime: Runtime) => {
  // chalk (inside Ink) decides on colors when it loads, so --no-color / NO_COLOR must be in place first.
  if (!runtime.color) process.env.FORCE_COLOR = "0"
  return import("./knowledge")
}

export interface RichPresentation<T> {
  readonly progress: string
  readonly run: () => Promise<T>
  readonly view: (result: T) => RichView
  readonly json?: (result: T) => unknown
}

/** `present` (render.ts) for rich views: JSON, plain text or Ink depending on the output mode. */
export const presentRich = async <T>(runtime: Runtime, presentation: RichPresentation<T>): Promise<T> => {
  switch (runtime.output) {
    case "json": {
      const result = await presentation.run()
      writeJson(presentation.json ? presentation.json(result) : result)
      return result
    }
    case "plain": {
      const result = await presentation.run()
      process.stdout.write(renderPlain(plainView(presentation.view(result))))
      return result
    }
    case "tty": {
      const ink = await loadKnowledgeInk(runtime)
      return ink.runRichTask(presentation.progress, presentation.run, presentation.view)
    }
  }
}
