// The loopback GitHub lives in packages/test-support so the CLI's tests can start it too.
export * from "../../../test-support/github-site"
