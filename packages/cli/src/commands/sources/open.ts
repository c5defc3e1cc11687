import { requireId } from "../../arguments"
import { defineCommand } from "../../command"
import { usageError } from "../../errors"
import { safeFileName, saveDownload } from "../../files"
import { present } from "../../output/present"
import { savedView } from "../../views/sources"

export default defineCommand({
  description: "download a source's original file (default: its file name in the current directory)",
  examples: ["lore sources open <sourceId>", "lore sources open <sourceId> -o ~/Downloads/", "lore sources open <sourceId> -o - | less"],
  configure: (command) =>
    command
      .argument("<sourceId>", "the source's id ('lore sources list')")
      .option("-o, --output <path>", "file or directory to write to; - for stdout")
      .option("-f, --force", "overwrite an existing file"),
  run: async (runtime, command) => {
    const [sourceId] = command.processedArgs as [string]
    requireId(sourceId, "source", "'lore sources list' shows the ids")
    const flags = command.opts<{ output?: string; force?: boolean }>()
    if (flags.output === "-" && runtime.output === "json") throw usageError("--output - writes the file to stdout, which --json needs for its document; pass a path")
    const lore = runtime.client({ requireToken: true })
    const download = async () => {
      const file = await lore.sources.content(sourceId)
      const saved = await saveDownload(file.bytes, { output: flags.output, force: flags.force ?? false, fileName: safeFileName(file.fileName, `source-${sourceId}`) })
      return { sourceId, ...saved, mediaType: file.mediaType }
    }
    // With `-` the bytes are the output: no spinner, no message on stdout.
    if (flags.output === "-") await download()
    else await present(runtime, { progress: "Downloading", run: download, view: savedView })
  }
})
