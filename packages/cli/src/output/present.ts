// Where the CLI restructuring puts `present` and `ask`; on this branch they live in render.ts.
export { ask, present } from "./render"
