import { requireAsset } from "../../arguments"
import { defineCommand } from "../../command"
import { CliError, ExitCode } from "../../errors"
import { present } from "../../output/present"
import { installPackage, parseCoordinate } from "../../skillPackages"

export default defineCommand({
  description: "install a released skill into a skills folder, after checking its digest and every file's sha256",
  examples: ["lore skills install docs/pdf-tools@1.0.0 --dir ~/.claude/skills", "lore --json skills install docs/pdf-tools@1.0.0 --dir ./skills"],
  notes: "Writes <dir>/<slug>, replacing an earlier install; nothing is written when a check fails (exit 6, DIGEST_MISMATCH).",
  configure: (command) =>
    command
      .argument("<coordinate>", "namespace/slug@version")
      .requiredOption("--dir <dir>", "the skills folder to install into"),
  run: async (runtime, command) => {
    const [raw] = command.processedArgs as [string]
    const flags = command.opts<{ dir: string }>()
    const coordinate = parseCoordinate(raw)
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: `Installing ${raw}`,
      run: async () => {
        const asset = await lore.assets.get(await requireAsset(lore, `${coordinate.namespace}/${coordinate.slug}`))
        const release = asset.releases.find((r) => r.versionLabel === coordinate.version)
        if (!release) {
          const known = asset.releases.map((r) => r.versionLabel).join(", ") || "none"
          throw new CliError(ExitCode.notFound, "RELEASE_NOT_FOUND", `${coordinate.namespace}/${coordinate.slug} has no release ${coordinate.version} (releases: ${known})`)
        }
        const manifest = await lore.assets.skills.manifest(asset.id, release.id)
        const pkg = await lore.assets.skills.package(asset.id, release.id, manifest.packageDigest)
        if (pkg.etag !== null && pkg.etag.replace(/^W\//, "").replace(/"/g, "") !== manifest.packageDigest) {
          throw new CliError(ExitCode.invalid, "DIGEST_MISMATCH", `the server's ETag ${pkg.etag} is not the manifest's digest ${manifest.packageDigest}`)
        }
        const installed = await installPackage(pkg.bytes, manifest, flags.dir)
        return { coordinate: manifest.coordinate, packageDigest: installed.digest, verified: true, directory: installed.directory, files: manifest.files.length }
      },
      view: (done) => [
        { kind: "message", text: `Installed ${done.coordinate} into ${done.directory}`, tone: "success" },
        { kind: "fields", fields: [["Package", `${done.packageDigest} (verified)`], ["Files", String(done.files)]] }
      ]
    })
  }
})
