import { type Classification, classificationValues, type EvidenceBinding } from "@lore/sdk"
import { uploadEvidence } from "@lore/sdk/node"
import { oneOf, requireId, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode, usageError } from "../../errors"
import { filesFromArguments } from "../../files"
import { present, writeJson } from "../../output/present"
import { evidenceAddedView } from "../../views/evidence"

interface AddFlags {
  readonly conversation?: string
  readonly space?: string
  readonly classification?: Classification
  readonly wait: boolean
}

/** The document could not be ingested: with --json the binding stays the one document on stdout. */
class EvidenceFailed extends CliError {
  constructor(readonly binding: EvidenceBinding) {
    super(ExitCode.invalid, binding.failureCode ?? "EVIDENCE_FAILED", `${binding.fileName}: ${binding.failureCode ?? binding.status}${binding.failureMessage ? ` (${binding.failureMessage})` : ""}`)
  }

  override toJSON() {
    return this.binding as unknown as ReturnType<CliError["toJSON"]>
  }
}

export default defineCommand({
  description: "upload a document as evidence of a conversation (ingested into a knowledge space) and wait until it is READY",
  examples: [
    "lore evidence add memo.pdf --conversation <conversationId> --space legal",
    "lore evidence add notes.md --conversation <conversationId> --space eng --classification INTERNAL --no-wait",
    "lore --json evidence add memo.pdf --conversation <conversationId> --space legal | jq -r .status"
  ],
  notes:
    "The document becomes a source of the space (you need contributor access to it); whoever the space's grants admit may find it.\n" +
    "Uploads are CONFIDENTIAL unless --classification says otherwise. Exits 0 when READY (or uploaded, with --no-wait); 6 when it FAILED.",
  configure: (command) =>
    command
      .argument("<file>", "the document to upload")
      .option("--conversation <id>", "your conversation it is evidence for (default: a new one titled with the file name; see lore conversations list)")
      .option("--space <key|id>", "the knowledge space to ingest it into (required)")
      .option("--classification <level>", `${classificationValues.join(", ")} (default: the server's, CONFIDENTIAL)`, oneOf(classificationValues))
      .option("--no-wait", "return once uploaded, without waiting for ingestion"),
  run: async (runtime, command) => {
    const [file] = command.processedArgs as [string]
    const flags = command.opts<AddFlags>()
    const conversationId = flags.conversation ? requireId(flags.conversation, "conversation", "lore conversations list shows your conversations' ids") : undefined
    if (!flags.space) throw usageError("missing --space: pass --space <key|id> (the knowledge space to ingest the document into)")
    const paths = await filesFromArguments([file])
    if (paths.length !== 1) throw usageError(`'${file}' names ${paths.length} files: add one document at a time`)
    const path = paths[0]!
    const lore = runtime.client({ requireToken: true })
    const space = await resolveSpace(lore, flags.space, "upload")
    const add = async () => {
      const uploaded = await uploadEvidence(lore, path, { conversationId, knowledgeSpaceId: space.id, classification: flags.classification })
      return flags.wait ? lore.assistant.evidence.waitUntilSettled(uploaded.conversationId, uploaded.id, { intervalMs: 500 }) : uploaded
    }
    if (runtime.output === "json") {
      const binding = await add()
      if (binding.status === "FAILED") throw new EvidenceFailed(binding)
      writeJson(binding)
      return
    }
    const binding = await present(runtime, { progress: `Uploading ${path} as evidence`, run: add, view: evidenceAddedView })
    if (binding.status === "FAILED") throw new CliError(ExitCode.invalid, binding.failureCode ?? "EVIDENCE_FAILED", `${binding.fileName} could not be ingested`)
  }
})
