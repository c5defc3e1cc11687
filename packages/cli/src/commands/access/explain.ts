import { type AccessExplanation, type AdminUser, type ExplainRequest, type ResourceType, type SpaceRelation, spaceRelationValues } from "@lore/sdk"
import { Directory, isUuid, oneOf } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { type Cell, formatTime, styled, type View } from "../../output/view"
import { classificationText, clearanceText } from "../../views/clearance"

// May this user reach this resource, and why (not)? The answer is the server's evaluator's, branch by
// branch. ALLOWED and DENIED both exit 0: it is an answer, not an error.

interface ExplainTarget {
  readonly resourceType: ResourceType
  /** An id; for a knowledge space also its key. */
  readonly ref: string
}

interface Explanation {
  readonly user: AdminUser
  readonly relation: SpaceRelation
  readonly explanation: AccessExplanation
}

const verbs: Record<SpaceRelation, string> = { viewer: "view", contributor: "contribute to", curator: "curate", manager: "manage" }

const resourceNames: Record<ResourceType, string> = { KNOWLEDGE_SPACE: "knowledge space", KNOWLEDGE_ASSET: "knowledge asset", SOURCE: "source", ASSET: "asset" }

const stateCell = (state: "ALLOWED" | "DENIED", reason: string): Cell => styled(`${state} (${reason})`, state === "ALLOWED" ? "success" : "error")

export const explanationView = ({ user, relation, explanation }: Explanation): View => {
  const { resource } = explanation
  const allowed = explanation.state === "ALLOWED"
  const context = resource.contextLabel && resource.contextLabel !== resource.label ? ` (${resource.contextLabel})` : ""
  const what = `${resourceNames[resource.type]} ${resource.label}${context}`
  const headline = allowed ? `ALLOWED: ${user.email} may ${verbs[relation]} ${what}` : `DENIED: ${user.email} may not ${verbs[relation]} ${what}`
  return [
    { kind: "message", tone: allowed ? "success" : "error", text: headline },
    {
      kind: "fields",
      fields: [
        ["Reason", styled(explanation.reasonCode, allowed ? "success" : "error")],
        ["Relationship", stateCell(explanation.relationshipState, explanation.relationshipReasonCode)],
        ["Content policy", stateCell(explanation.contentPolicyState, explanation.contentPolicyReasonCode)],
        ["User", `${user.name} <${user.email}>, ${user.role}${user.active ? "" : ", deactivated"}`],
        ["Clearance", clearanceText(user.clearance)],
        ["Resource", styled(`${resource.type} ${resource.id}`, "muted")],
        ["Classification", resource.classification ? classificationText(resource.classification) : "-"],
        ["Generation", `${explanation.provenance.generation} (${explanation.provenance.origin})`],
        ["Policy version", styled(explanation.policyVersion, "muted")],
        ["Evaluated", formatTime(explanation.evaluatedAt)]
      ]
    },
    { kind: "heading", text: "Grant path" },
    {
      kind: "table",
      columns: [{ header: "object", fit: "text" }, { header: "relation" }, { header: "via" }],
      rows: explanation.path.map((step) => [step.objectLabel ? `${step.objectLabel} (${step.object})` : step.object, step.relation, step.kind]),
      empty: "No grant gives access."
    },
    { kind: "heading", text: "Blocked by" },
    {
      kind: "table",
      columns: [{ header: "branch" }, { header: "kind" }, { header: "detail", fit: "text" }],
      rows: explanation.blockedBy.map((block) => [styled(block.branch, "error"), block.kind, block.detail]),
      empty: "Nothing."
    }
  ]
}

interface ExplainFlags {
  readonly user: string
  readonly space?: string
  readonly source?: string
  readonly asset?: string
  readonly knowledgeAsset?: string
  readonly relation?: SpaceRelation
}

/** Exactly one of --space, --source, --asset, --knowledge-asset. */
const explainTarget = (flags: ExplainFlags): ExplainTarget => {
  const given: ExplainTarget[] = []
  if (flags.space !== undefined) given.push({ resourceType: "KNOWLEDGE_SPACE", ref: flags.space })
  if (flags.source !== undefined) given.push({ resourceType: "SOURCE", ref: flags.source })
  if (flags.asset !== undefined) given.push({ resourceType: "ASSET", ref: flags.asset })
  if (flags.knowledgeAsset !== undefined) given.push({ resourceType: "KNOWLEDGE_ASSET", ref: flags.knowledgeAsset })
  if (given.length !== 1) throw usageError("pass exactly one of --space, --source, --asset or --knowledge-asset")
  const target = given[0]!
  if (target.resourceType !== "KNOWLEDGE_SPACE" && !isUuid(target.ref)) {
    throw usageError(`'${target.ref}' is not an id: --${target.resourceType === "KNOWLEDGE_ASSET" ? "knowledge-asset" : target.resourceType.toLowerCase()} takes a uuid`)
  }
  return target
}

export default defineCommand({
  description: "explain whether a user may reach a knowledge space, source or asset, and which grant or rule decides it",
  examples: [
    "lore access explain --user ada@example.com --space general",
    "lore access explain --user ada@example.com --source <sourceId>",
    "lore access explain --user ada@example.com --space eng --relation contributor"
  ],
  notes: "Exits 0 whether access is ALLOWED or DENIED; --json prints the server's AccessExplanation.",
  configure: (command) =>
    command
      .requiredOption("--user <user>", "email or user id")
      .option("--space <space>", "a knowledge space id or key")
      .option("--source <id>", "a source (uploaded or connected document) id")
      .option("--asset <id>", "an AI asset id")
      .option("--knowledge-asset <id>", "a knowledge asset id")
      .option("--relation <relation>", `${spaceRelationValues.join(", ")} (default viewer)`, oneOf(spaceRelationValues)),
  run: async (runtime, command) => {
    const flags = command.opts<ExplainFlags>()
    const target = explainTarget(flags)
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Asking the access evaluator",
      run: async (): Promise<Explanation> => {
        const [user, resourceId] = await Promise.all([
          directory.user(flags.user),
          target.resourceType === "KNOWLEDGE_SPACE" ? directory.spaceId(target.ref) : Promise.resolve(target.ref)
        ])
        const request: ExplainRequest = { userId: user.id, resourceType: target.resourceType, resourceId, ...(flags.relation ? { relation: flags.relation } : {}) }
        return { user, relation: flags.relation ?? "viewer", explanation: await directory.lore.admin.access.explain(request) }
      },
      view: explanationView,
      json: (result) => result.explanation
    })
  }
})
