import { collectAnswer, emptyAnswer, foldAnswer } from "@lore/sdk"
import { nonEmpty, requireId, resolveSpace } from "../arguments"
import { attachFiles } from "../assistantFiles"
import { defineCommand } from "../command"
import { AnswerFailedError } from "../errors"
import { writeJson } from "../output/present"
import { writePlain } from "../output/plain"
import { stepLines } from "../output/steps"
import { answerJson, citationBlocks } from "../views/assistant"

export default defineCommand({
  description: "ask the assistant one question: the answer streams to stdout, its sources listed under it",
  helpGroup: "Knowledge",
  examples: [
    "lore ask \"Do flights need a manager's approval?\"",
    "lore ask \"And trains?\" --conversation <conversationId>   # a follow-up",
    "lore ask \"Summarize the risks\" --file ./contract.pdf   # uploaded privately, then attached",
    "lore --json ask \"What is the per diem in Lisbon?\" | jq '.citations[0].citationId'"
  ],
  notes: "On a terminal each step shows as a line on stderr (\"searching: …\", \"reading: …\"). With --json, prints the saved message when the answer is complete: " +
    "{messageId, conversationId, content, status, provider, model, citations, steps: [{toolCallId, toolName, input, state, label, outcome}]};\n" +
    "when the answer fails inside its stream, only the error: {\"error\": {status: 0, code: \"ANSWER_FAILED\", detail, requestId, errors, conversationId, messageId}} (exit 1).",
  configure: (command) =>
    command
      .argument("<question>", "the question (quote it; at most 8000 characters)")
      .option("--conversation <id>", "continue this conversation ('lore conversations' lists them)")
      .option("--space <key|id...>", "answer only from these knowledge spaces")
      .option("--file <path|id...>", "attach your own files: a path is uploaded privately first ('lore files list' shows ids)")
      .option("--model <modelActivationId>", "answer with this model ('lore chat' /model lists them)"),
  run: async (runtime, command) => {
    const [raw] = command.processedArgs as [string]
    const message = nonEmpty(raw, "the question")
    const flags = command.opts<{ conversation?: string; space?: ReadonlyArray<string>; file?: ReadonlyArray<string>; model?: string }>()
    if (flags.conversation) requireId(flags.conversation, "conversation", "'lore conversations' shows the ids")
    if (flags.model) requireId(flags.model, "model", "'lore chat' and /model show the model ids")
    const lore = runtime.client({ requireToken: true })
    const spaces = flags.space ? await Promise.all(flags.space.map((spec) => resolveSpace(lore, spec, "read"))) : undefined
    const fileIds = flags.file ? await attachFiles(lore, flags.file) : undefined
    const stream = lore.assistant.chat({
      message,
      ...(flags.conversation ? { conversationId: flags.conversation } : {}),
      ...(spaces ? { knowledgeSpaceIds: spaces.map((space) => space.id) } : {}),
      ...(fileIds ? { fileIds } : {}),
      ...(flags.model ? { modelActivationId: flags.model } : {})
    })
    let answer = emptyAnswer
    if (runtime.output === "json") {
      answer = await collectAnswer(stream)
      // --json is one document: a failed answer is the error alone (lore.ts prints it), never the message and then the error.
      if (!answer.error) writeJson(answerJson(answer))
    } else {
      // Streamed as it arrives, piped or not: the text on stdout, the sources after it; on a terminal each
      // step's tool call is a spinner line on stderr. A step's text before the answer's ends with its own line.
      const steps = stepLines()
      let wrote = false
      try {
        for await (const part of stream) {
          answer = foldAnswer(answer, part)
          steps.update(answer)
          if (part.type === "text-start" && wrote) process.stdout.write("\n")
          // Said on stderr, before the answer: e.g. the model failed and the offline answerer answers instead.
          if (part.type === "data-notice") process.stderr.write(`note: ${part.data.message}\n`)
          if (part.type === "text-delta") {
            process.stdout.write(part.delta)
            wrote = true
          }
        }
      } finally {
        steps.end()
      }
      process.stdout.write("\n")
      writePlain(citationBlocks(answer.citations))
    }
    if (answer.error) throw new AnswerFailedError(answer.error, stream.requestId, answer.conversationId, answer.messageId)
  }
})
