import type { AccessExplanation, AdminUser, ExplainRequest, ResourceType, SpaceRelation as GrantRelation } from "@lore/sdk"
import type { Command } from "commander"
import { type CommandModule, handler } from "../command"
import { usageError } from "../errors"
import { present } from "../output/render"
import { type Cell, formatTime, styled, type View } from "../output/view"
import { Directory, isUuid, oneOf, RELATIONS } from "./adminShared"

// `lore access explain`: may this user reach this resource, and why (not)? The answer is the server's
// evaluator's, branch by branch. ALLOWED and DENIED both exit 0: it is an answer, not an error.

export interface ExplainTarget {
  readonly resourceType: ResourceType
  /** An id; for a knowledge space also its key. */
  readonly ref: string
}

export interface Explanation {
  readonly user: AdminUser
  readonly relation: GrantRelation
  readonly explanation: AccessExplanation
}

export const explainAccess = async (
  directory: Directory,
  input: { readonly user: string; readonly target: ExplainTarget; readonly relation?: GrantRelation | undefined }
): Promise<Explanation> => {
  const [user, resourceId] = await Promise.all([
    directory.user(input.user),
    input.target.resourceType === "KNOWLEDGE_SPACE" ? directory.spaceId(input.target.ref) : Promise.resolve(input.target.ref)
  ])
  const request: ExplainRequest = {
    userId: user.id,
    resourceType: input.target.resourceType,
    resourceId,
    ...(input.relation ? { relation: input.relation } : {})
  }
  return { user, relation: input.relation ?? "viewer", explanation: await directory.lore.admin.access.explain(request) }
}

const verbs: Record<GrantRelation, string> = { viewer: "view", contributor: "contribute to", curator: "curate", manager: "manage" }

const resourceNames: Record<ResourceType, string> = {
  KNOWLEDGE_SPACE: "knowledge space",
  KNOWLEDGE_ASSET: "knowledge asset",
  SOURCE: "source",
  ASSET: "asset"
}

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
        ["User", `${user.name} <${user.email}>, ${user.role}, clearance ${user.clearance}${user.active ? "" : ", inactive"}`],
        ["Resource", styled(`${resource.type} ${resource.id}`, "muted")],
        ["Classification", resource.classification ?? "-"],
        ["Generation", `${explanation.provenance.generation} (${explanation.provenance.origin})`],
        ["Policy version", styled(explanation.policyVersion, "muted")],
        ["Evaluated", formatTime(explanation.evaluatedAt)]
      ]
    },
    { kind: "heading", text: "Grant path" },
    {
      kind: "table",
      columns: [{ header: "object" }, { header: "relation" }, { header: "via" }],
      rows: explanation.path.map((step) => [step.objectLabel ? `${step.objectLabel} (${step.object})` : step.object, step.relation, step.kind]),
      empty: "No grant gives access."
    },
    { kind: "heading", text: "Blocked by" },
    {
      kind: "table",
      columns: [{ header: "branch" }, { header: "kind" }, { header: "detail" }],
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
  readonly relation?: GrantRelation
}

/** Exactly one of --space, --source, --asset, --knowledge-asset. */
export const explainTarget = (flags: ExplainFlags): ExplainTarget => {
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

export const accessCommand: CommandModule = {
  register: (program: Command) => {
    const access = program.command("access").description("why a user can or cannot reach something (administrators)")

    access
      .command("explain")
      .description("explain whether a user may reach a knowledge space, source or asset, and which grant or rule decides it")
      .requiredOption("--user <user>", "email or user id")
      .option("--space <space>", "a knowledge space id or key")
      .option("--source <id>", "a source (uploaded or connected document) id")
      .option("--asset <id>", "an AI asset id")
      .option("--knowledge-asset <id>", "a knowledge asset id")
      .option("--relation <relation>", `${RELATIONS.join(", ")} (default viewer)`, oneOf(RELATIONS))
      .addHelpText("after", "\nExits 0 whether access is ALLOWED or DENIED; --json prints the server's AccessExplanation.")
      .action(
        handler(async (runtime, command) => {
          const flags = command.opts<ExplainFlags>()
          const target = explainTarget(flags)
          const directory = new Directory(runtime.client({ requireToken: true }))
          await present(runtime, {
            progress: "Asking the access evaluator",
            run: () => explainAccess(directory, { user: flags.user, target, relation: flags.relation }),
            view: explanationView,
            json: (result) => result.explanation
          })
        })
      )
  }
}
