import { defineGroup } from "../../../command"

export default defineGroup({
  description: "curate a space's graph (curator relation needed): add or correct entities and relations, merge, hide, remove a curation",
  examples: [
    "lore graph curate entity --space eng --id <entityId> --name \"Dr. Alice Johnson\" --type PERSON",
    "lore graph curate alias --space eng <entityId> --into <entityId>",
    "lore graph curate rm --space eng <curationId> --reason \"merged by mistake\""
  ]
})
