import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { exec, rows } from "../db/Rows"

export const StarterRow = Schema.Struct({ id: Schema.String, label: Schema.String, prompt: Schema.String })

/** SQL for the starters administrators configure, in their order. */
export class StartersRepo extends Effect.Service<StartersRepo>()("lore/StartersRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const list = rows("assistant.starters", StarterRow, (organizationId: string) => sql`
      SELECT id, label, prompt FROM assistant_starters WHERE organization_id = ${organizationId} ORDER BY position`)
    return {
      list,
      replace: (organizationId: string, starters: ReadonlyArray<{ readonly label: string; readonly prompt: string }>) =>
        Effect.gen(function* () {
          yield* exec(() => sql`DELETE FROM assistant_starters WHERE organization_id = ${organizationId}`)()
          for (const [position, starter] of starters.entries()) {
            yield* exec(() => sql`
              INSERT INTO assistant_starters (organization_id, label, prompt, position) VALUES (${organizationId}, ${starter.label}, ${starter.prompt}, ${position})`)()
          }
          return yield* list(organizationId)
        })
    }
  })
}) {}
