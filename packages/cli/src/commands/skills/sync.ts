import { defineCommand } from "../../command"
import { notice, present } from "../../output/present"
import { syncSkills } from "../../skillSync"

export default defineCommand({
  description: "install every released skill you activated into a skills folder (digests verified), and remove the ones withdrawn or deactivated",
  examples: ["lore skills sync --dir .claude/skills", "lore --json skills sync --dir ~/.claude/skills"],
  notes:
    "Installs the latest available release of each skill you may use and turned on (lore skills activate), checking the package digest and every " +
    "file's sha256 like 'lore skills install'. Lore keeps .lore-skills.json in the folder listing what it installed: only those folders are ever " +
    "replaced or removed, so your own skills beside them are left alone (a folder of the same name is skipped).",
  configure: (command) => command.requiredOption("--dir <dir>", "the skills folder (e.g. .claude/skills)"),
  run: async (runtime, command) => {
    const flags = command.opts<{ dir: string }>()
    const lore = runtime.client({ requireToken: true })
    const result = await present(runtime, {
      progress: `Syncing skills into ${flags.dir}`,
      run: () => syncSkills(lore, runtime.target().server, flags.dir),
      view: (done) => [
        {
          kind: "table",
          columns: [{ header: "skill" }, { header: "action" }, { header: "package", fit: "optional" }],
          rows: done.skills.map((s) => [s.coordinate, { text: s.action, tone: s.action === "skipped" ? "warning" : s.action === "unchanged" ? "muted" : "success" }, s.packageDigest ?? ""]),
          empty: "No activated skills, and nothing installed by Lore to remove."
        },
        { kind: "hint", text: `${done.directory}: ${done.installed.length} skill${done.installed.length === 1 ? "" : "s"} installed by Lore` }
      ]
    })
    for (const skipped of result.skills.filter((s) => s.action === "skipped")) {
      notice(runtime, `${skipped.coordinate} was not installed: ${skipped.directory} holds a skill Lore did not install (or one of another namespace)`)
    }
  }
})
