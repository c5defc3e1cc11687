import { defineGroup } from "../../../command"

export default defineGroup({
  description: "single sign-on with OpenID Connect: the identity provider people sign in with",
  examples: ["lore admin sso show", "printf %s \"$CLIENT_SECRET\" | lore admin sso set --issuer https://login.example.com --client-id lore --client-secret-stdin --enable"]
})
