// The loopback Google Workspace lives in packages/test-support so the CLI's tests can start it too.
export * from "../../../test-support/google-drive-site"
