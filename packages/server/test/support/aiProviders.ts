// The fake providers live in packages/test-support so the CLI's tests can start them too.
export * from "../../../test-support/aiProviders"
