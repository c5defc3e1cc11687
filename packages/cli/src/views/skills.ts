import type { RepoImport, RepoPreview, SkillActivation, SkillInspection } from "@lore/sdk"
import { styled, type View } from "../output/view"
import { idCell } from "./users"

/** Skills as the skill commands show them. */

export const skillInspectionView = (inspection: SkillInspection): View => [
  { kind: "message", text: `${inspection.name}: a valid skill`, tone: "success" },
  {
    kind: "fields",
    fields: [
      ["Name", inspection.name],
      ["Description", inspection.description],
      ["License", inspection.license ?? "-"],
      ["Compatibility", inspection.compatibility ?? "-"],
      ["Allowed tools", inspection.allowedTools ?? "-"],
      ["Package", `${inspection.sha256} (${inspection.contentLength} bytes)`]
    ]
  },
  {
    kind: "table",
    columns: [{ header: "file", fit: "text" }, { header: "size", align: "right" }, { header: "sha256", fit: "optional" }],
    rows: inspection.files.map((file) => [file.path, String(file.size), file.sha256]),
    empty: "No files."
  }
]

export interface PushedSkill {
  readonly asset: string
  readonly assetId: string
  readonly change: "created" | "updated" | "unchanged"
  readonly lockVersion: number
  readonly packageDigest: string
  readonly submitted: boolean
}

export const pushedSkillView = (pushed: PushedSkill): View => [
  { kind: "line", spans: [{ text: pushed.change, tone: pushed.change === "unchanged" ? "muted" : "success" }, { text: ` ${pushed.asset}`, bold: true }, { text: ` (lockVersion ${pushed.lockVersion})` }] },
  { kind: "fields", fields: [["Id", idCell(pushed.assetId)], ["Package", pushed.packageDigest], ["Submitted", pushed.submitted ? styled("yes, review open", "accent") : "no"]] }
]

export const repoPreviewView = (preview: RepoPreview): View => [
  { kind: "fields", fields: [["Repository", preview.repository], ["Revision", preview.revision], ["Visibility", preview.visibility]] },
  {
    kind: "table",
    columns: [{ header: "path" }, { header: "importable" }, { header: "name" }, { header: "files", align: "right", fit: "optional" }, { header: "problem", fit: "text" }],
    rows: preview.skills.map((skill) => [
      skill.path,
      skill.importable ? styled("yes", "success") : styled("no", "error"),
      skill.name ?? "-",
      String(skill.fileCount),
      skill.errorCode ? `${skill.errorCode}: ${skill.errorMessage ?? ""}` : ""
    ]),
    empty: "No SKILL.md in this revision."
  }
]

export const repoImportView = (result: RepoImport): View => [
  { kind: "fields", fields: [["Repository", result.repository], ["Revision", result.revision]] },
  {
    kind: "table",
    columns: [{ header: "path" }, { header: "result" }, { header: "asset" }, { header: "detail", fit: "text" }],
    rows: result.skills.map((skill) => [
      skill.path,
      skill.imported ? styled("imported", "success") : skill.errorCode === "UNCHANGED" ? styled("unchanged", "muted") : styled("not imported", "error"),
      skill.asset ? `${skill.asset.namespace}/${skill.asset.slug}` : "-",
      skill.errorCode && skill.errorCode !== "UNCHANGED" ? `${skill.errorCode}: ${skill.errorMessage ?? ""}` : ""
    ]),
    empty: "No paths."
  }
]

export const activationView = (name: string) => (activation: SkillActivation): View => [
  { kind: "message", text: `${name} is ${activation.enabled ? "active" : "inactive"} for you`, tone: activation.enabled ? "success" : "muted" }
]
