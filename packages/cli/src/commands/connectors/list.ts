import { defineCommand } from "../../command"
import { present } from "../../output/present"
import { connectorsView } from "../../views/connectors"

export default defineCommand({
  description: "every connection (of one kind with --kind), with its trust and whether a credential is set",
  isDefault: true,
  examples: ["lore connectors list", "lore connectors list --kind PUSH --json"],
  configure: (command) => command.option("--kind <kind>", "only this kind (sourceSystem), e.g. PUSH", (value: string) => value.trim().toUpperCase()),
  run: async (runtime, command) => {
    const { kind } = command.opts<{ kind?: string }>()
    const lore = runtime.client({ requireToken: true })
    let spaceKeys = new Map<string, string>()
    await present(runtime, {
      progress: "Loading connections",
      run: async () => {
        const kinds = kind ? [kind] : (await lore.admin.connectors.kinds()).map((k) => k.sourceSystem)
        const [configs, spaces] = await Promise.all([
          Promise.all(kinds.map((k) => lore.admin.connectors.list(k))),
          runtime.output === "json" ? Promise.resolve([]) : lore.knowledgeSpaces.visible().catch(() => [])
        ])
        spaceKeys = new Map(spaces.map((space) => [space.id, space.key]))
        return configs.flat()
      },
      view: (configs) => connectorsView(configs, spaceKeys)
    })
  }
})
