import { readFileSync } from "node:fs"
import { defineCommand } from "../../../command"
import { usageError } from "../../../errors"
import { present } from "../../../output/present"
import { ssoView } from "../../../views/sso"

export default defineCommand({
  description: "set the OpenID Connect provider; fields left out keep their value (the secret only from stdin)",
  examples: [
    "printf %s \"$SECRET\" | lore admin sso set --issuer https://login.example.com --client-id lore --client-secret-stdin --enable",
    "lore admin sso set --jit",
    "lore admin sso set --disable"
  ],
  configure: (command) =>
    command
      .option("--issuer <url>", "the provider's issuer URL (https)")
      .option("--client-id <id>", "the client id registered at the provider")
      .option("--client-secret-stdin", "read the client secret from stdin (never an argument: it would land in the shell's history)")
      .option("--enable", "turn single sign-on on")
      .option("--disable", "turn single sign-on off")
      .option("--jit", "create unknown users with a verified email on their first sign-in")
      .option("--no-jit", "refuse unknown users"),
  run: async (runtime, command) => {
    const flags = command.opts<{ issuer?: string; clientId?: string; clientSecretStdin?: boolean; enable?: boolean; disable?: boolean; jit?: boolean }>()
    if (flags.enable && flags.disable) throw usageError("pass --enable or --disable, not both")
    let clientSecret: string | undefined
    if (flags.clientSecretStdin) {
      if (process.stdin.isTTY) throw usageError("--client-secret-stdin reads the secret from stdin, but stdin is a terminal; pipe it in")
      clientSecret = readFileSync(0, "utf8").trim()
      if (clientSecret === "") throw usageError("--client-secret-stdin: stdin was empty")
    }
    const lore = runtime.client({ requireToken: true })
    await present(runtime, {
      progress: "Saving single sign-on settings",
      run: async () => {
        const current = await lore.admin.sso.get()
        const issuer = flags.issuer ?? current.issuer
        const clientId = flags.clientId ?? current.clientId
        if (!issuer || !clientId) throw usageError("the first time, pass --issuer and --client-id")
        return lore.admin.sso.set({
          enabled: flags.enable ? true : flags.disable ? false : current.enabled,
          issuer,
          clientId,
          ...(clientSecret === undefined ? {} : { clientSecret }),
          ...(command.getOptionValueSource("jit") === "cli" ? { justInTimeCreation: flags.jit === true } : {}),
          version: current.version
        })
      },
      view: (s) => ssoView(s, "Saved single sign-on settings")
    })
  }
})
