import { defineGroup } from "../../command"

export default defineGroup({
  description: "governed assets (prompt templates, work instructions, capability packs): drafts, reviews, releases; 'lore assets' alone lists them",
  helpGroup: "Knowledge",
  examples: [
    "lore assets push 'assets/**/*.yaml'   # create or update drafts from files",
    "lore assets submit ops/incident-summary --note 'first version'",
    "lore assets release ops/incident-summary --label 1.0.0"
  ]
})
