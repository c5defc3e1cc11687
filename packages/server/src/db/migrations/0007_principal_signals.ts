import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

/**
 * Every change to what authenticates a caller, or to who they are, is announced on the `lore_principals`
 * channel at commit, so each server process drops the principals it cached (identity/PrincipalCache.ts):
 * the payload is the user's id, or `*` for everyone (a department renamed, an organization's
 * authorization generation raised, a table truncated). Triggers, not application code, so that no
 * write path (SCIM, an operator's SQL) can forget it. Touching a token's last_used_at and a user's
 * updated_at alone announces nothing: those are not part of a principal.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE FUNCTION lore_announce_principal_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- TG_ARGV[0] names the column holding the user's id; without it, every principal is affected.
      IF TG_NARGS = 0 THEN
        PERFORM pg_notify('lore_principals', '*');
      ELSE
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM pg_notify('lore_principals', to_jsonb(OLD) ->> TG_ARGV[0]);
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM pg_notify('lore_principals', to_jsonb(NEW) ->> TG_ARGV[0]);
        END IF;
      END IF;
      RETURN NULL;
    END
    $$`

  const perUser = [
    // table, column naming the user, columns whose change alone does not matter, whether a new row matters
    ["access_tokens", "user_id", ["last_used_at"], false],
    ["sessions", "user_id", [], false],
    ["users", "id", ["updated_at"], false],
    ["platform_role_members", "user_id", [], true]
  ] as const
  for (const [table, column, ignored, inserts] of perUser) {
    const changed = ignored.reduce((row, name) => `${row} - '${name}'`, "to_jsonb(%ROW%)")
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_principal_update AFTER UPDATE ON ${table} FOR EACH ROW
      WHEN (${changed.replace("%ROW%", "OLD")} IS DISTINCT FROM ${changed.replace("%ROW%", "NEW")})
      EXECUTE FUNCTION lore_announce_principal_change('${column}')`)
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_principal_delete AFTER ${inserts ? "INSERT OR DELETE" : "DELETE"} ON ${table} FOR EACH ROW
      EXECUTE FUNCTION lore_announce_principal_change('${column}')`)
  }
  for (const table of ["departments", "organizations"]) {
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_principal_update AFTER UPDATE ON ${table} FOR EACH ROW
      WHEN (OLD.* IS DISTINCT FROM NEW.*)
      EXECUTE FUNCTION lore_announce_principal_change()`)
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_principal_delete AFTER DELETE ON ${table} FOR EACH STATEMENT
      EXECUTE FUNCTION lore_announce_principal_change()`)
  }
  for (const table of ["access_tokens", "sessions", "users", "platform_role_members", "departments", "organizations"]) {
    yield* sql.unsafe(`
      CREATE TRIGGER ${table}_principal_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT
      EXECUTE FUNCTION lore_announce_principal_change()`)
  }
})
