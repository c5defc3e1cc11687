import type { AdminKnowledgeSpace } from "@lore/sdk"
import { Directory, nonEmpty, requireSpaceKey } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { styled, type View } from "../../../output/view"

const createdView = (space: AdminKnowledgeSpace): View => [
  { kind: "message", tone: "success", text: `Created knowledge space ${space.name} (${space.key})` },
  {
    kind: "fields",
    fields: [
      ["Id", styled(space.id, "muted")],
      ["Audience", space.audienceMode],
      ["Grants", String(space.grants.length)]
    ]
  },
  { kind: "hint", text: `Give others access with: lore admin grants add ${space.key} --relation viewer --kind ...` }
]

export default defineCommand({
  description: "create a knowledge space (no grants yet: add them with 'lore admin grants add')",
  examples: ["lore admin spaces create eng-handbook --name \"Engineering handbook\" --department Engineering", "lore admin spaces create scratch --name Scratch"],
  configure: (command) =>
    command
      .argument("<key>", "short unique key: lowercase letters, digits and dashes (e.g. eng-handbook)")
      .requiredOption("--name <name>", "display name")
      .option("--department <department>", "owning department id or name"),
  run: async (runtime, command) => {
    const [key] = command.processedArgs as [string]
    const flags = command.opts<{ name: string; department?: string }>()
    requireSpaceKey(key)
    const name = nonEmpty(flags.name, "--name")
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: `Creating ${key}`,
      run: async () =>
        directory.lore.admin.spaces.create({ key, name, ...(flags.department === undefined ? {} : { departmentId: await directory.departmentId(flags.department) }) }),
      view: createdView
    })
  }
})
