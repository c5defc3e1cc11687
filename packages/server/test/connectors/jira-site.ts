// The loopback Jira lives in packages/test-support so the CLI's tests can start it too.
export * from "../../../test-support/jira-site"
