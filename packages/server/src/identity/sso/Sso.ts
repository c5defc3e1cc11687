import { Effect } from "effect"
import * as oidc from "openid-client"
import { AuthorizationGeneration } from "../../access/Generation"
import { Settings } from "../../Config"
import { UserDeactivated } from "../../domain/Errors"
import type { Principal } from "../../domain/Principal"
import { actingUserId } from "../../domain/Principal"
import { Audit } from "../../platform/Audit"
import { checkOutboundUrl, guardedFetch, outboundPolicy } from "../../outbound/Guard"
import { hashSecret, randomSecret, SecretBox } from "../../platform/SecretBox"
import { IdentityRepo } from "../Repo"
import { SESSION_HOURS } from "../Sessions"
import {
  InvalidSsoSettings, SsoCodeRejected, SsoNotConfigured, SsoProviderUnavailable, SsoStateInvalid, SsoUserNotLinked, SsoVersionConflict
} from "./Api"
import { SsoRepo, type SsoSettingsRow } from "./Repo"
import { Tokens } from "../Tokens"

export const SSO_CALLBACK_PATH = "/api/session/sso/callback"
const SCOPES = "openid email profile"

const notConfigured = new SsoNotConfigured({ detail: "Single sign-on is not configured for this organization; an administrator sets it with PUT /api/admin/sso" })

const describe = (row: SsoSettingsRow | undefined) => ({
  enabled: row?.enabled ?? false,
  issuer: row?.issuer ?? "",
  clientId: row?.clientId ?? "",
  clientSecretSet: row?.clientSecretSealed != null,
  justInTimeCreation: row?.justInTime ?? false,
  redirectPath: SSO_CALLBACK_PATH,
  version: row?.version ?? 0,
  updatedAt: row?.updatedAt ?? null
})

/** What the callback decided: a browser session, or a token for the CLI's loopback redirect. */
export type SsoOutcome =
  | { readonly kind: "session"; readonly secret: string; readonly expiresAt: Date; readonly returnTo: string }
  | { readonly kind: "cli"; readonly redirect: string }

/**
 * Single sign-on with OpenID Connect (authorization code + PKCE, on openid-client): the administrator's
 * settings (client secret sealed at rest, write-only), the start of a sign-in (state, nonce and code verifier
 * kept server-side for ten minutes, used once), and the callback that matches the identity to a Lore user.
 */
export class Sso extends Effect.Service<Sso>()("lore/Sso", {
  effect: Effect.gen(function* () {
    const repo = yield* SsoRepo
    const identity = yield* IdentityRepo
    const tokens = yield* Tokens
    const box = yield* SecretBox
    const audit = yield* Audit
    const generation = yield* AuthorizationGeneration
    const settings = yield* Settings
    // Discovery, JWKS and token requests go through the outbound guard: an issuer on a loopback or private
    // address is reached only when LORE_ALLOWED_PRIVATE_HOSTS lists it (redirects checked hop by hop).
    const fetchGuarded = guardedFetch(outboundPolicy(settings), { timeoutMs: 10_000 }) as unknown as oidc.CustomFetch

    const checkIssuer = (issuer: string) => {
      let url: URL
      try {
        url = new URL(issuer)
      } catch {
        return Effect.fail(new InvalidSsoSettings({ detail: "issuer is not a URL" }))
      }
      if (url.protocol === "https:" || (url.protocol === "http:" && settings.ssoAllowHttpIssuer)) {
        return checkOutboundUrl(url, outboundPolicy(settings)).ok
          ? Effect.succeed(url)
          : Effect.fail(new InvalidSsoSettings({ detail: "issuer is a loopback or private address, which this server does not reach (LORE_ALLOWED_PRIVATE_HOSTS)" }))
      }
      return Effect.fail(new InvalidSsoSettings({ detail: "issuer must be an https URL (http only with LORE_SSO_ALLOW_HTTP_ISSUER, for tests)" }))
    }

    /** The provider's configuration, discovered from its issuer. */
    const configuration = (row: SsoSettingsRow) =>
      Effect.gen(function* () {
        const url = yield* checkIssuer(row.issuer)
        const secret = row.clientSecretSealed ? box.decrypt(row.clientSecretSealed) : undefined
        return yield* Effect.tryPromise({
          try: () => oidc.discovery(url, row.clientId, undefined, secret ? oidc.ClientSecretBasic(secret) : oidc.None(),
            url.protocol === "http:"
              ? { execute: [oidc.allowInsecureRequests], timeout: 10, [oidc.customFetch]: fetchGuarded }
              : { timeout: 10, [oidc.customFetch]: fetchGuarded }),
          catch: () => new SsoProviderUnavailable({ detail: "The identity provider's discovery document could not be read" })
        })
      })

    const enabledSettings = Effect.gen(function* () {
      const organization = yield* repo.organization()
      if (!organization) return yield* notConfigured
      const row = yield* repo.settings(organization.id)
      if (!row || !row.enabled) return yield* notConfigured
      return row
    })

    /** Which Lore user an identity is: linked before, provisioned with that externalId, or by verified email. */
    const match = (organizationId: string, claims: oidc.IDToken, justInTime: boolean) =>
      Effect.gen(function* () {
        const subject = claims.sub
        const email = typeof claims.email === "string" ? claims.email : undefined
        const verified = claims.email_verified === true
        const found = (yield* repo.bySubject(organizationId, subject))
          ?? (yield* repo.byExternalId(organizationId, subject))
          ?? (email && verified ? yield* repo.byEmail(organizationId, email) : undefined)
        if (found) return { ...found, created: false }
        if (justInTime && email && verified) {
          const name = typeof claims.name === "string" && claims.name.trim() ? claims.name.trim().slice(0, 200) : email
          const created = yield* repo.insertUser(organizationId, email, name, subject)
          if (created) return { id: created.id, active: true, created: true }
        }
        return yield* new SsoUserNotLinked({
          detail: email && !verified
            ? "The identity provider did not verify this email address, and no Lore user is linked to this identity"
            : "No Lore user matches this identity; ask an administrator to invite or provision you"
        })
      })

    return {
      get: (actor: Principal) => Effect.map(repo.settings(actor.organizationId), describe),

      set: (actor: Principal, input: { enabled: boolean; issuer: string; clientId: string; clientSecret?: string | undefined; justInTimeCreation?: boolean | undefined; version: number }) =>
        Effect.gen(function* () {
          yield* checkIssuer(input.issuer)
          const current = yield* repo.settings(actor.organizationId)
          if ((current?.version ?? 0) !== input.version) {
            return yield* new SsoVersionConflict({ detail: `The settings are at version ${current?.version ?? 0}, not ${input.version}` })
          }
          const saved = yield* repo.save(actor.organizationId, {
            enabled: input.enabled,
            issuer: input.issuer,
            clientId: input.clientId,
            clientSecretSealed: input.clientSecret === undefined ? null : box.encrypt(input.clientSecret),
            justInTime: input.justInTimeCreation ?? current?.justInTime ?? false,
            version: input.version,
            updatedBy: actingUserId(actor)
          })
          if (!saved) return yield* new SsoVersionConflict({ detail: "The settings changed meanwhile; read them again" })
          yield* audit.record(actor, {
            action: "sso.settings.update", resourceType: "sso_settings", resourceId: actor.organizationId,
            details: { enabled: input.enabled, issuer: input.issuer, clientId: input.clientId, clientSecretChanged: input.clientSecret !== undefined }
          })
          return describe(yield* repo.settings(actor.organizationId))
        }),

      /** The provider's authorization URL for a new sign-in, and the state for the browser's cookie. */
      start: (origin: string, returnTo: string | undefined, cliRedirect: string | undefined) =>
        Effect.gen(function* () {
          const row = yield* enabledSettings
          const config = yield* configuration(row)
          const verifier = oidc.randomPKCECodeVerifier()
          const challenge = yield* Effect.promise(() => oidc.calculatePKCECodeChallenge(verifier))
          const state = oidc.randomState()
          const nonce = oidc.randomNonce()
          yield* repo.purgeLogins()
          // The destination rides with the pending sign-in: `cli:` marks a loopback redirect for `lore login --sso`.
          yield* repo.insertLogin(hashSecret(state), row.organizationId, box.encrypt(verifier), nonce, cliRedirect ? `cli:${cliRedirect}` : returnTo ?? null)
          const url = oidc.buildAuthorizationUrl(config, {
            redirect_uri: origin + SSO_CALLBACK_PATH,
            scope: SCOPES,
            code_challenge: challenge,
            code_challenge_method: "S256",
            state,
            nonce
          })
          return { url: url.href, state }
        }),

      /** The callback: checks state (cookie and query), exchanges the code with PKCE, matches the user. */
      callback: (origin: string, search: string, query: { state?: string | undefined; error?: string | undefined }, stateCookie: string | undefined) =>
        Effect.gen(function* () {
          const stale = new SsoStateInvalid({ detail: "The sign-in's state is missing, does not match, was used already or expired; start the sign-in again" })
          if (!query.state || !stateCookie || stateCookie !== query.state) return yield* stale
          const pending = yield* repo.consumeLogin(hashSecret(query.state))
          if (!pending || pending.expired) return yield* stale
          if (query.error) return yield* new SsoCodeRejected({ detail: `The identity provider refused the sign-in (${query.error.slice(0, 100)})` })
          const row = yield* enabledSettings
          const config = yield* configuration(row)
          const tokenSet = yield* Effect.tryPromise({
            try: () => oidc.authorizationCodeGrant(config, new URL(origin + SSO_CALLBACK_PATH + search), {
              pkceCodeVerifier: box.decrypt(pending.codeVerifierSealed),
              expectedState: query.state,
              expectedNonce: pending.nonce,
              idTokenExpected: true
            }),
            catch: (error) => new SsoCodeRejected({
              detail: `The identity provider did not accept the authorization response${error instanceof oidc.ResponseBodyError ? ` (${error.error})` : ""}`
            })
          })
          const claims = tokenSet.claims()
          if (!claims) return yield* new SsoCodeRejected({ detail: "The identity provider returned no ID token" })
          const user = yield* match(pending.organizationId, claims, row.justInTime)
          if (!user.active) return yield* new UserDeactivated({ detail: "This user has been deactivated" })
          yield* repo.link(user.id, claims.sub)
          if (user.created) yield* generation.bump(pending.organizationId)
          const system = { organizationId: pending.organizationId, userId: user.id }
          yield* audit.record(
            { userId: user.id, organizationId: system.organizationId, departmentId: "", departmentName: "", email: "", name: "", role: "EMPLOYEE", clearance: "PUBLIC", platformRoles: [], credential: { kind: "session", id: "sso" } },
            { action: user.created ? "sso.user.create" : "sso.sign_in", resourceType: "user", resourceId: user.id, details: { subject: claims.sub } }
          )
          if (pending.returnTo?.startsWith("cli:")) {
            const issued = yield* tokens.issue(user.id, "lore CLI (single sign-on)", 90)
            const target = new URL(pending.returnTo.slice(4))
            target.searchParams.set("token", issued.token)
            return { kind: "cli", redirect: target.href } satisfies SsoOutcome
          }
          const secret = randomSecret(32)
          const expiresAt = new Date(Date.now() + SESSION_HOURS * 3600_000)
          yield* identity.insertSession(user.id, hashSecret(secret), expiresAt)
          return { kind: "session", secret, expiresAt, returnTo: pending.returnTo ?? "/" } satisfies SsoOutcome
        })
    }
  }),
  dependencies: [SsoRepo.Default, IdentityRepo.Default, Tokens.Default, SecretBox.Default, Audit.Default, AuthorizationGeneration.Default]
}) {}
