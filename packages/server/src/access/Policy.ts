import { Effect } from "effect"
import type { GrantRow } from "./SpacesRepo"
import { LastSpaceManager } from "./Errors"

/**
 * Who may change the grants of one knowledge space, beyond the endpoint's grants.manage permission:
 * a space always keeps at least one effective `manager` grant, so someone named stays answerable for what
 * it holds (administrators reach every space through their permissions, but are not its owners).
 * `remaining` are the space's grants after the change, as the transaction sees them.
 */
export const grantRemoval = (removed: { readonly relation: string }, remaining: ReadonlyArray<GrantRow>) =>
  removed.relation === "manager" && !remaining.some((grant) => grant.relation === "manager" && grant.effective)
    ? Effect.fail(new LastSpaceManager({ detail: "This is the space's last effective manager grant; grant manager to someone else first" }))
    : Effect.void
