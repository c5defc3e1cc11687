import { defineGroup } from "../../command"

export default defineGroup({
  description: "Agent Skills packages: inspect, push drafts, import from git repositories, install released versions, activate",
  helpGroup: "Knowledge",
  examples: [
    "lore skills inspect ./skills/pdf-tools          # every problem listed, exit 6 when invalid",
    "lore skills push ./skills/pdf-tools --namespace docs --space playbooks --submit",
    "lore skills install docs/pdf-tools@1.0.0 --dir ~/.claude/skills"
  ]
})
