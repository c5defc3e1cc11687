import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every release, withdrawal or removal of an asset release is announced on the `lore_asset_releases` channel at
 * commit, with the asset's id, so each server process can tell its MCP sessions that their prompt list may have
 * changed (mcp/Sessions.ts). A trigger, like the principal signals (0007), so that no write path forgets it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION lore_announce_asset_release_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'DELETE' THEN
        PERFORM pg_notify('lore_asset_releases', OLD.asset_id::text);
      ELSE
        PERFORM pg_notify('lore_asset_releases', NEW.asset_id::text);
      END IF;
      RETURN NULL;
    END
    $$`
  yield* sql`
    CREATE TRIGGER asset_releases_announce_insert AFTER INSERT OR DELETE ON asset_releases FOR EACH ROW
    EXECUTE FUNCTION lore_announce_asset_release_change()`
  yield* sql`
    CREATE TRIGGER asset_releases_announce_update AFTER UPDATE ON asset_releases FOR EACH ROW
    WHEN (OLD.availability IS DISTINCT FROM NEW.availability)
    EXECUTE FUNCTION lore_announce_asset_release_change()`
})
