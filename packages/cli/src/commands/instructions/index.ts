import { defineGroup } from "../../command"

export default defineGroup({
  description: "read released work instructions: the steps, checks and escalations to follow",
  helpGroup: "Knowledge",
  examples: ["lore instructions show sre/pager", "lore instructions show sre/pager --release 1.0.0"]
})
