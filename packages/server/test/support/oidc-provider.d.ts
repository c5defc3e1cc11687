// oidc-provider ships no types (DefinitelyTyped's lag its releases); the SSO test uses a handful of its calls.
declare module "oidc-provider" {
  const Provider: any
  export default Provider
}
