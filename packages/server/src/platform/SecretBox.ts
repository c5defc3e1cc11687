import { Effect, Option, Redacted } from "effect"
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Settings } from "../Config"

const decodeKey = (text: string): Buffer => {
  const trimmed = text.trim()
  const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, "hex") : Buffer.from(trimmed, "base64")
  if (key.length !== 32) throw new Error("LORE_SECRET_KEY must be 32 bytes, as 64 hex characters or base64")
  return key
}

/** The key for secrets at rest: LORE_SECRET_KEY, else a key generated once into the data dir (mode 0600). */
const loadKey = Effect.gen(function* () {
  const settings = yield* Settings
  if (Option.isSome(settings.secretKey)) return decodeKey(Redacted.value(settings.secretKey.value))
  const path = join(settings.dataDir, "secret.key")
  if (existsSync(path)) return decodeKey(readFileSync(path, "utf8"))
  mkdirSync(settings.dataDir, { recursive: true })
  const key = randomBytes(32)
  writeFileSync(path, key.toString("hex") + "\n", { mode: 0o600, flag: "wx" })
  return key
})

/** Encryption (AES-256-GCM) and keyed hashing with the server's secret key. */
export const makeSecretBox = (key: Buffer) => ({
  encrypt: (plaintext: string): string => {
    const iv = randomBytes(12)
    const cipher = createCipheriv("aes-256-gcm", key, iv)
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()])
    return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), body.toString("base64")].join(".")
  },
  decrypt: (sealed: string): string => {
    const [version, iv, tag, body] = sealed.split(".")
    if (version !== "v1" || !iv || !tag || body === undefined) throw new Error("unrecognized sealed secret")
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"))
    decipher.setAuthTag(Buffer.from(tag, "base64"))
    return Buffer.concat([decipher.update(Buffer.from(body, "base64")), decipher.final()]).toString("utf8")
  },
  /** HMAC-SHA256 in base64url: stateless tokens bound to this server's key (CSRF). */
  sign: (purpose: string, value: string): string => createHmac("sha256", key).update(`${purpose}:${value}`).digest("base64url"),
  verify: (purpose: string, value: string, signature: string): boolean => {
    const expected = Buffer.from(createHmac("sha256", key).update(`${purpose}:${value}`).digest("base64url"))
    const given = Buffer.from(signature)
    return expected.length === given.length && timingSafeEqual(expected, given)
  }
})

/** Credentials are high-entropy random strings, so one SHA-256 is a sufficient and fast verifier. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")
export const randomSecret = (bytes = 32): string => randomBytes(bytes).toString("base64url")

export class SecretBox extends Effect.Service<SecretBox>()("lore/SecretBox", {
  effect: Effect.map(loadKey, makeSecretBox)
}) {}
