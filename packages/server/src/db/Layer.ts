import { Layer } from "effect"
import { MigratedLive } from "./Migrations"
import { SqlLive } from "./Sql"

/** The database as the areas see it: the SQL client and what the database is, only once migrations ran. */
export const DatabaseLive = MigratedLive.pipe(Layer.provideMerge(SqlLive))
