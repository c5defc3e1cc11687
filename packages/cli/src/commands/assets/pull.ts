import { mkdir, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { requireAsset } from "../../arguments"
import { assetFileOf, assetFileText } from "../../assetFiles"
import { defineCommand } from "../../command"
import { present } from "../../output/present"

export default defineCommand({
  description: "write assets to YAML files (<dir>/<namespace>/<slug>.yaml): the draft, or the latest release for viewers",
  examples: ["lore assets pull ops/incident-summary", "lore assets pull ops/incident-summary sre/pager-handover --dir ./assets"],
  configure: (command) => command.argument("<assets...>", "ids or namespace/slug").option("--dir <dir>", "where to write", "assets"),
  run: async (runtime, command) => {
    const [refs] = command.processedArgs as [Array<string>]
    const { dir } = command.opts<{ dir: string }>()
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Pulling assets",
      run: async () => {
        const spaces = new Map((await lore.knowledgeSpaces.visible()).map((space) => [space.id, space.key]))
        const written: Array<{ asset: string; file: string }> = []
        for (const ref of refs) {
          const asset = await lore.assets.get(await requireAsset(lore, ref))
          const file = assetFileOf(asset, spaces.get(asset.knowledgeSpaceId) ?? asset.knowledgeSpaceId)
          if (!file) continue
          const path = join(dir, asset.namespace, `${asset.slug}.yaml`)
          await mkdir(join(dir, asset.namespace), { recursive: true })
          await writeFile(path, assetFileText(file))
          written.push({ asset: `${asset.namespace}/${asset.slug}`, file: path })
        }
        return written
      },
      view: (written) => written.map((entry) => ({ kind: "message" as const, tone: "success" as const, text: `${entry.asset} -> ${entry.file}` }))
    })
  }
})
