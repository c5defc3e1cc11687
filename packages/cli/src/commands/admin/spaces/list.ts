import { Directory } from "../../../arguments"
import { defineCommand } from "../../../command"
import { present } from "../../../output/present"
import { styled } from "../../../output/view"
import { departmentCell, idCell } from "../../../views/users"

const audienceTone = { ORGANIZATION: "accent", DEPARTMENT: undefined, RESTRICTED: "warning", NONE: "muted" } as const

export default defineCommand({
  description: "every knowledge space, with its audience and number of grants",
  isDefault: true,
  examples: ["lore admin spaces list", "lore --json admin spaces | jq -r '.[].key'"],
  run: async (runtime) => {
    const directory = new Directory(runtime.client({ requireToken: true }))
    await present(runtime, {
      progress: "Loading knowledge spaces",
      run: async () => ({ spaces: await directory.spaces(), labels: await directory.labels() }),
      view: ({ spaces, labels }) => [
        {
          kind: "table",
          columns: [{ header: "key" }, { header: "name", fit: "text" }, { header: "department", fit: "text" }, { header: "audience" }, { header: "grants", align: "right", fit: "optional" }, { header: "id" }],
          rows: spaces.map((space) => [
            styled(space.key, "accent"),
            space.name,
            departmentCell(labels, space.departmentId),
            styled(space.audienceMode, audienceTone[space.audienceMode]),
            String(space.grants.length),
            idCell(space.id)
          ]),
          empty: "No knowledge spaces."
        }
      ],
      json: (result) => result.spaces
    })
  }
})
