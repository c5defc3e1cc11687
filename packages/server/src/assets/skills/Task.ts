import type { SkillLimits } from "../../Config"
import type { PackageFile } from "./Archive"
import { checkSkill, inspectZip, type SkillCheck } from "./Format"

/** A skill to check, as plain data a parse worker receives (structured clone). */
export type SkillTask =
  /** An uploaded skill package (zip). */
  | { readonly kind: "skill-zip"; readonly bytes: Uint8Array; readonly limits: SkillLimits }
  /** A skill's files read from elsewhere (a repository folder). */
  | { readonly kind: "skill-files"; readonly files: ReadonlyArray<PackageFile>; readonly directory: string | null; readonly limits: SkillLimits }

/** The work itself: in a parse worker, or in process when the pool could not start. */
export const runSkillTask = (task: SkillTask): SkillCheck =>
  task.kind === "skill-zip" ? inspectZip(task.bytes, task.limits) : checkSkill(task.files, task.directory, task.limits)
