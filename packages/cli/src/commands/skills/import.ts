import { type Classification, classificationValues, type RepoImport } from "@lore/sdk"
import { oneOf, resolveSpace } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present, writeJson } from "../../output/present"
import { repoImportView } from "../../views/skills"

/** Some paths were not imported: with --json the import's result stays the one document on stdout. */
class SkillsNotImported extends CliError {
  constructor(detail: string, readonly result: RepoImport) {
    super(ExitCode.invalid, "SKILLS_NOT_IMPORTED", detail)
  }

  override toJSON() {
    return this.result as unknown as ReturnType<CliError["toJSON"]>
  }
}

const failures = (result: RepoImport) => result.skills.filter((skill) => !skill.imported && skill.errorCode !== "UNCHANGED")
const failureDetail = (result: RepoImport) =>
  `${failures(result).length} of ${result.skills.length} path${result.skills.length === 1 ? "" : "s"} not imported: ${failures(result).map((s) => `${s.path} (${s.errorCode})`).join(", ")}`

const collect = (value: string, previous: Array<string> = []) => [...previous, value]

export default defineCommand({
  description: "import skills from a git repository as drafts (every importable SKILL.md, or the --path folders)",
  examples: [
    "lore skills import https://github.com/acme/skills --namespace acme --space playbooks",
    "lore skills import https://github.com/acme/skills --path skills/pdf --revision v1.2.0 --namespace acme --space playbooks"
  ],
  notes: "Importing a revision again changes nothing (UNCHANGED); a new revision replaces the drafts whose package changed. A private repository's token is read from LORE_REPO_TOKEN (never a flag), sent once, never stored. Exits 6 when a chosen path could not be imported.",
  configure: (command) =>
    command
      .argument("<repository>", "https://... (or file:///... where the server allows it)")
      .requiredOption("--namespace <namespace>", "the namespace the skills are imported into")
      .requiredOption("--space <space>", "knowledge space key or id")
      .option("--path <folder>", "a skill folder to import (repeatable; default every importable one)", collect)
      .option("--revision <rev>", "a branch, tag or commit (default the remote's HEAD)")
      .option("--classification <level>", "classification of new skills (default INTERNAL)", oneOf(classificationValues)),
  run: async (runtime, command) => {
    const [repository] = command.processedArgs as [string]
    const flags = command.opts<{ namespace: string; space: string; path?: Array<string>; revision?: string; classification?: Classification }>()
    const lore = runtime.client({ requireToken: true })
    const token = process.env.LORE_REPO_TOKEN
    const credential = token ? { token, ...(process.env.LORE_REPO_USERNAME ? { username: process.env.LORE_REPO_USERNAME } : {}) } : undefined
    const run = async () => {
      const space = await resolveSpace(lore, flags.space, "read")
      const source = { repository, knowledgeSpaceId: space.id, ...(flags.revision ? { revision: flags.revision } : {}), ...(credential ? { credential } : {}) }
      let paths = flags.path
      if (!paths || paths.length === 0) {
        const preview = await lore.assets.skills.previewRepository(source)
        paths = preview.skills.filter((skill) => skill.importable).map((skill) => skill.path)
        if (paths.length === 0) throw new CliError(ExitCode.invalid, "NO_IMPORTABLE_SKILLS", `the repository has no importable skill at ${preview.revision}`)
        // Pin the revision the preview read, so a push in between cannot change what is imported.
        source.revision = preview.revision
      }
      return lore.assets.skills.importRepository({ source, paths, namespace: flags.namespace, ...(flags.classification ? { classification: flags.classification } : {}) })
    }
    if (runtime.output === "json") {
      const result = await run()
      if (failures(result).length > 0) throw new SkillsNotImported(failureDetail(result), result)
      writeJson(result)
      return
    }
    const result = await present(runtime, { progress: `Importing from ${repository}`, run, view: repoImportView })
    if (failures(result).length > 0) throw new CliError(ExitCode.invalid, "SKILLS_NOT_IMPORTED", failureDetail(result))
  }
})
