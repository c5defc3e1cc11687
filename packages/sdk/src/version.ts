/** Sent as the default User-Agent outside browsers; keep in step with package.json. */
export const SDK_VERSION = "0.1.0"
