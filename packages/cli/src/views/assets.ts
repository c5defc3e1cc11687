import type { Asset, AssetSummary, RevisionDiff } from "@lore/sdk"
import { type Block, type Cell, formatTime, styled, type Tone, type View } from "../output/view"
import { idCell } from "./users"

/** Assets as the asset commands show them: the list, one asset with its releases and reviews, a diff. */

export const portfolioTone = (state: string): Tone =>
  state === "RELEASED" ? "success" : state === "IN_REVIEW" ? "accent" : state === "WITHDRAWN" ? "error" : "muted"

export const availabilityCell = (availability: string): Cell => styled(availability, availability === "AVAILABLE" ? "success" : "error")

export const assetsView = (assets: ReadonlyArray<AssetSummary>): View => [
  {
    kind: "table",
    columns: [{ header: "id" }, { header: "asset" }, { header: "type" }, { header: "state" }, { header: "title", fit: "text" }, { header: "updated", fit: "optional" }],
    rows: assets.map((asset) => [idCell(asset.id), `${asset.namespace}/${asset.slug}`, asset.type, styled(asset.portfolioState, portfolioTone(asset.portfolioState)), asset.title, formatTime(asset.updatedAt)]),
    empty: "No assets."
  }
]

export const assetView = (asset: Asset): View => {
  const health = asset.ownershipHealth
  const view: Array<Block> = [
    { kind: "heading", text: `${asset.namespace}/${asset.slug}` },
    {
      kind: "fields",
      fields: [
        ["Id", idCell(asset.id)],
        ["Type", asset.type],
        ["State", styled(asset.portfolioState, portfolioTone(asset.portfolioState))],
        ["Sharing", asset.sharingState],
        ["Title", asset.draft?.title ?? asset.releases.at(-1)?.title ?? "-"],
        ["Classification", asset.draft?.classification ?? asset.releases.at(-1)?.classification ?? "-"],
        ...(asset.draft ? [["Draft", `lockVersion ${asset.draft.lockVersion}, edited ${formatTime(asset.draft.updatedAt)}`] as const] : []),
        ["Ownership", health.orphaned ? styled("orphaned", "error") : health.continuityAtRisk ? styled("continuity at risk", "warning") : styled("healthy", "success")]
      ]
    }
  ]
  if (asset.releases.length > 0) {
    view.push({ kind: "blank" }, {
      kind: "table",
      columns: [{ header: "release" }, { header: "version" }, { header: "mode" }, { header: "availability" }, { header: "digest", fit: "optional" }, { header: "released", fit: "optional" }],
      rows: asset.releases.map((release) => [idCell(release.id), release.versionLabel, release.publicationMode, availabilityCell(release.availability), release.digest, formatTime(release.releasedAt)]),
      empty: "No releases."
    })
  }
  if (asset.reviews.length > 0) {
    const sequence = new Map(asset.revisions.map((revision) => [revision.id, revision.sequence]))
    view.push({ kind: "blank" }, {
      kind: "table",
      columns: [{ header: "review" }, { header: "revision", align: "right" }, { header: "state" }, { header: "approvals", align: "right" }, { header: "opened", fit: "optional" }],
      rows: asset.reviews.map((review) => [
        idCell(review.id),
        `r${sequence.get(review.revisionId) ?? "?"}`,
        styled(review.state, review.state === "APPROVED" ? "success" : review.state === "IN_REVIEW" ? "accent" : "warning"),
        `${review.decisions.filter((d) => d.decision === "APPROVE").length}/${review.requiredApprovals}`,
        formatTime(review.createdAt)
      ]),
      empty: "No reviews."
    })
  }
  return view
}

/** `emails`: users' emails by id, when the caller may read users (ids otherwise). */
export const rolesView = (asset: Asset, emails: ReadonlyMap<string, string> = new Map()): View => [
  {
    kind: "table",
    columns: [{ header: "assignment" }, { header: "role" }, { header: "user" }, { header: "from" }, { header: "until" }],
    rows: asset.roleAssignments.map((assignment) => [idCell(assignment.id), assignment.role, emails.get(assignment.principalId) ?? assignment.principalId, formatTime(assignment.validFrom), formatTime(assignment.validUntil, "open")]),
    empty: "No role assignments."
  },
  {
    kind: "fields",
    fields: [
      ["Owner present", String(asset.ownershipHealth.ownerPresent)],
      ["Backup owner present", String(asset.ownershipHealth.backupOwnerPresent)],
      ["Orphaned", asset.ownershipHealth.orphaned ? styled("yes", "error") : "no"],
      ["Continuity at risk", asset.ownershipHealth.continuityAtRisk ? styled("yes", "warning") : "no"]
    ]
  }
]

export const diffView = (diff: RevisionDiff): View => [
  { kind: "message", text: diff.baseVersionLabel ? `Changes against release ${diff.baseVersionLabel}` : "No earlier release: the whole revision is new", tone: "muted" },
  ...diff.patch.split("\n").filter((line) => !line.startsWith("=====")).map((line): Block => ({
    kind: "line",
    spans: [{ text: line, ...(line.startsWith("+") && !line.startsWith("+++") ? { tone: "success" as const } : line.startsWith("-") && !line.startsWith("---") ? { tone: "error" as const } : {}) }]
  }))
]
