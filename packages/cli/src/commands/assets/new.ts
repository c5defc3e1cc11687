import { assetTypeValues, type AssetType, type Classification, classificationValues } from "@lore/sdk"
import { readFile } from "node:fs/promises"
import { parse } from "yaml"
import { oneOf, resolveSpace } from "../../arguments"
import { starters } from "../../assetStarters"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { present } from "../../output/present"
import { assetView } from "../../views/assets"

export default defineCommand({
  description: "create an asset with a first draft (you own it)",
  examples: [
    "lore assets new ops/incident-summary --type PROMPT_TEMPLATE --space general --title 'Incident summary'",
    "lore assets new hr/onboarding --type CAPABILITY_PACK --space hr --title Onboarding --payload pack.yaml"
  ],
  configure: (command) =>
    command
      .argument("<namespace/slug>", "where the asset lives, e.g. ops/incident-summary")
      .requiredOption("--type <type>", `${assetTypeValues.filter((t) => t !== "SKILL").join(", ")}`, oneOf(assetTypeValues))
      .requiredOption("--space <space>", "the knowledge space (key or id) whose members may see it")
      .requiredOption("--title <title>", "the title")
      .option("--summary <text>", "a one-line summary", "")
      .option("--classification <classification>", `${classificationValues.join(", ")}`, oneOf(classificationValues), "INTERNAL")
      .option("--payload <file>", "the payload as a YAML or JSON file (default: a starter for the type)"),
  run: async (runtime, command) => {
    const [ref] = command.processedArgs as [string]
    const flags = command.opts<{ type: AssetType; space: string; title: string; summary: string; classification: Classification; payload?: string }>()
    const match = /^([a-z0-9][a-z0-9._-]*)\/([a-z0-9][a-z0-9-]*)$/.exec(ref)
    if (!match) throw usageError(`'${ref}' is not namespace/slug`, "Lower-case letters, digits and '-', e.g. ops/incident-summary.")
    const payload = flags.payload ? parse(await readFile(flags.payload, "utf8")) : starters[flags.type]
    if (payload === undefined) throw usageError(`a ${flags.type} needs --payload <file>`)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Creating ${ref}`,
      run: async () => {
        const space = await resolveSpace(lore, flags.space, "read")
        return lore.assets.create({
          type: flags.type,
          namespace: match[1]!,
          slug: match[2]!,
          knowledgeSpaceId: space.id,
          draft: { title: flags.title, summary: flags.summary, classification: flags.classification, schemaVersion: "1", payload: JSON.stringify(payload) }
        })
      },
      view: assetView
    })
  }
})
