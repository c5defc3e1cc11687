import { type Classification, classificationValues, type RepoImport } from "@lore/sdk"
import { oneOf, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present, writeJson } from "../../output/present"
import { repoImportView } from "../../views/skills"

/** Some paths were not imported: with --json the import's result stays the one document on stdout. */
class SkillsNotImported extends CliError {
  constructor(detail: string, readonly result: unknown) {
    super(ExitCode.invalid, "SKILLS_NOT_IMPORTED", detail, 0, undefined, "Pass --skip-invalid to import the valid folders and exit 0.")
  }

  override toJSON() {
    return this.result as unknown as ReturnType<CliError["toJSON"]>
  }
}

/** Folders that were not imported (an unchanged one was: its draft holds that package already). */
const skippedOf = (result: RepoImport) => result.skills.filter((skill) => !skill.imported && skill.errorCode !== "UNCHANGED")
const skippedDetail = (result: RepoImport) =>
  `${skippedOf(result).length} of ${result.skills.length} folder${result.skills.length === 1 ? "" : "s"} not imported`

/** The --json document: the server's RepoImport, a skipped folder as {path, imported: false, errorCode, errorMessage}. */
const importJson = (result: RepoImport) => ({
  ...result,
  skills: result.skills.map((skill) =>
    !skill.imported && skill.errorCode !== "UNCHANGED" ? { path: skill.path, imported: false, errorCode: skill.errorCode, errorMessage: skill.errorMessage } : skill
  )
})

const collect = (value: string, previous: Array<string> = []) => [...previous, value]

export default defineCommand({
  description: "import skills from a git repository as drafts (every folder holding a SKILL.md, or the --path folders)",
  examples: [
    "lore skills import https://github.com/acme/skills   # your only upload space; its key as namespace",
    "lore skills import https://github.com/acme/skills --namespace acme --space playbooks --skip-invalid",
    "lore skills import https://github.com/acme/skills --path skills/pdf --revision v1.2.0 --namespace acme --space playbooks"
  ],
  notes:
    "Importing a revision again changes nothing (UNCHANGED); a new revision replaces the drafts whose package changed. A private repository's token is read from LORE_REPO_TOKEN (never a flag), sent once, never stored.\n" +
    "Every folder that could not be imported is listed on stderr as `SKIPPED <path> <errorCode>: <errorMessage>`, and the command exits 6 (SKILLS_NOT_IMPORTED) unless --skip-invalid is given; the valid ones are imported either way.\n" +
    "With --json the one document is the RepoImport, a skipped folder as {path, imported: false, errorCode, errorMessage}.",
  configure: (command) =>
    command
      .argument("<repository>", "https://... (or file:///... where the server allows it)")
      .option("--namespace <namespace>", "the namespace the skills are imported into (default: the space's key)")
      .option("--space <space>", "knowledge space key or id (default: the only one you may add to)")
      .option("--path <folder>", "a skill folder to import (repeatable; default every folder holding a SKILL.md)", collect)
      .option("--revision <rev>", "a branch, tag or commit (default the remote's HEAD)")
      .option("--classification <level>", "classification of new skills (default INTERNAL)", oneOf(classificationValues))
      .option("--skip-invalid", "exit 0 when some folders could not be imported (they are still listed)"),
  run: async (runtime, command) => {
    const [repository] = command.processedArgs as [string]
    const flags = command.opts<{ namespace?: string; space?: string; path?: Array<string>; revision?: string; classification?: Classification; skipInvalid?: boolean }>()
    const lore = runtime.client({ requireToken: true })
    const token = process.env.LORE_REPO_TOKEN
    const credential = token ? { token, ...(process.env.LORE_REPO_USERNAME ? { username: process.env.LORE_REPO_USERNAME } : {}) } : undefined
    const run = async () => {
      const space = flags.space ? await resolveSpace(lore, flags.space, "read") : undefined
      const source = { repository, ...(space ? { knowledgeSpaceId: space.id } : {}), ...(flags.revision ? { revision: flags.revision } : {}), ...(credential ? { credential } : {}) }
      return lore.assets.skills.importRepository({
        source,
        ...(flags.path && flags.path.length > 0 ? { paths: flags.path } : {}),
        ...(flags.namespace ? { namespace: flags.namespace } : {}),
        ...(flags.classification ? { classification: flags.classification } : {})
      })
    }
    const result = runtime.output === "json" ? await run() : await present(runtime, { progress: `Importing from ${repository}`, run, view: repoImportView })
    const skipped = skippedOf(result)
    // Never a silent skip: each folder left out, with the rule it broke.
    for (const skill of skipped) process.stderr.write(`SKIPPED ${skill.path} ${skill.errorCode ?? "NOT_IMPORTED"}: ${skill.errorMessage ?? ""}\n`)
    if (result.skills.length === 0) throw new CliError(ExitCode.invalid, "NO_IMPORTABLE_SKILLS", `the repository has no SKILL.md at ${result.revision}`)
    if (skipped.length > 0 && !flags.skipInvalid) throw new SkillsNotImported(skippedDetail(result), importJson(result))
    if (runtime.output === "json") writeJson(importJson(result))
  }
})
