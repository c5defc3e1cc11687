import type { ChatAnswer, ChatToolStep } from "@lore/sdk"
import { stepLabel, stepOutcome } from "../views/assistant"

const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]

/**
 * `lore ask` on a terminal: a spinner line per tool call on stderr ("searching: …", "reading: …"), turned into
 * a check (or a cross with the error's code) when its result arrives; stdout keeps only the answer. Off when
 * stderr is not a terminal, so pipes and --json are untouched.
 */
export const stepLines = (stream: NodeJS.WriteStream = process.stderr) => {
  const enabled = stream.isTTY === true
  const shown = new Map<string, ChatToolStep["state"]>()
  let running: ChatToolStep | undefined
  let frame = 0
  let timer: ReturnType<typeof setInterval> | undefined
  const draw = () => {
    if (running) stream.write(`\r\u001b[K\u001b[36m${FRAMES[frame++ % FRAMES.length]}\u001b[39m ${stepLabel(running)}`)
  }
  const stop = () => {
    if (timer) clearInterval(timer)
    timer = undefined
  }
  return {
    /** Redraws after each part: new calls get a spinner, finished ones their outcome. */
    update: (answer: ChatAnswer) => {
      if (!enabled) return
      for (const step of answer.steps) {
        const before = shown.get(step.toolCallId)
        if (before === step.state || (before === "running" && step.input === undefined)) continue
        if (step.state === "running") {
          if (step.input === undefined) continue
          running = step
          shown.set(step.toolCallId, "running")
          draw()
          timer ??= setInterval(draw, 80)
          continue
        }
        stop()
        running = undefined
        shown.set(step.toolCallId, step.state)
        const mark = step.state === "done" ? "\u001b[32m✓\u001b[39m" : "\u001b[31m✗\u001b[39m"
        stream.write(`\r\u001b[K${mark} ${stepLabel(step)} \u001b[2m(${stepOutcome(step)})\u001b[22m\n`)
      }
    },
    end: () => {
      stop()
      if (enabled && running) stream.write("\r\u001b[K")
    }
  }
}
