import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every change to an AI gateway (its settings or key), its assistant models or a workload route is announced
 * on the `lore_ai_config` channel at commit, so each server process drops the routes, gateways and models it
 * cached (ai/ConfigCache.ts): the payload is the organization's id, or `*` when it cannot be told (an
 * assistant model's gateway already gone, a table truncated). Triggers, not application code, so that no
 * write path (an administrator's endpoint, an operator's SQL) can forget it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION lore_announce_ai_config_change() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      organization text;
    BEGIN
      IF TG_LEVEL = 'STATEMENT' THEN
        PERFORM pg_notify('lore_ai_config', '*');
        RETURN NULL;
      END IF;
      IF TG_TABLE_NAME = 'ai_assistant_models' THEN
        SELECT organization_id::text INTO organization FROM ai_gateways
        WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.gateway_id ELSE NEW.gateway_id END;
      ELSIF TG_OP = 'DELETE' THEN
        organization := OLD.organization_id::text;
      ELSE
        organization := NEW.organization_id::text;
      END IF;
      PERFORM pg_notify('lore_ai_config', coalesce(organization, '*'));
      -- Nested, not one AND: a record field is looked up even when an earlier condition is false.
      IF TG_OP = 'UPDATE' AND TG_TABLE_NAME <> 'ai_assistant_models' THEN
        IF OLD.organization_id IS DISTINCT FROM NEW.organization_id THEN
          PERFORM pg_notify('lore_ai_config', OLD.organization_id::text);
        END IF;
      END IF;
      RETURN NULL;
    END
    $$`
  for (const table of ["ai_gateways", "ai_assistant_models", "ai_routes"]) {
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_ai_config_change AFTER INSERT OR UPDATE OR DELETE ON ${table} FOR EACH ROW
      EXECUTE FUNCTION lore_announce_ai_config_change()`)
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_ai_config_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT
      EXECUTE FUNCTION lore_announce_ai_config_change()`)
  }
})
