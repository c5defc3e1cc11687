import { defineGroup } from "../../../command"

export default defineGroup({
  description: "graph jobs: show, cancel (at the next chunk boundary), resume a FAILED or CANCELLED one",
  examples: ["lore graph jobs show <jobId>", "lore graph jobs cancel <jobId>", "lore graph jobs resume <jobId>"]
})
