/**
 * A database's schema as comparable text: what tests compare when two databases must be the same
 * (a migrated template and a fresh database; an upgraded database and a fresh one).
 */
import type { Database } from '../../src/server/db/index.js';

/**
 * What the schema is made of, each part as sorted rows of text. Not-null constraints (which PGlite's
 * newer PostgreSQL lists as constraints of their own, named after the table a column was first made
 * in) are left to the columns' `is_nullable`.
 */
export const CATALOG: Record<string, string> = {
  columns: `SELECT table_name, column_name, ordinal_position, data_type, udt_name, is_nullable, column_default,
                   character_maximum_length, numeric_precision, numeric_scale, is_identity, is_generated, generation_expression
              FROM information_schema.columns WHERE table_schema = 'public'`,
  constraints: `SELECT conrelid::regclass::text AS "table", conname, contype, pg_get_constraintdef(oid) AS definition
                  FROM pg_constraint WHERE connamespace = 'public'::regnamespace AND contype <> 'n'`,
  indexes: `SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public'`,
  sequences: `SELECT sequencename, data_type::text, start_value::text, min_value::text, max_value::text, increment_by::text, cycle, last_value::text
                FROM pg_sequences WHERE schemaname = 'public'`,
  functions: `SELECT proname, pg_get_functiondef(oid) AS definition FROM pg_proc WHERE pronamespace = 'public'::regnamespace`,
  triggers: `SELECT tgrelid::regclass::text AS "table", tgname, pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE NOT tgisinternal`,
  views: `SELECT viewname, definition FROM pg_views WHERE schemaname = 'public'`,
  types: `SELECT typname, typtype, array_to_string(ARRAY(SELECT enumlabel FROM pg_enum WHERE enumtypid = t.oid ORDER BY enumsortorder), ',') AS labels
            FROM pg_type t WHERE typnamespace = 'public'::regnamespace AND typtype IN ('e', 'd', 'c') AND typrelid = 0`,
  extensions: `SELECT extname, extversion FROM pg_extension`,
  settings: `SELECT name, setting FROM pg_settings WHERE source NOT IN ('default', 'override', 'session', 'client')`,
  migrations: `SELECT name FROM schema_migrations`,
};

/**
 * The schema of `db`, part by part. `shapeOnly` leaves out where each column sits in its table (a
 * column a later migration adds comes last, where the first text of a migration had it elsewhere) and
 * how far each sequence has gone (data, not schema).
 */
export async function describeSchema(db: Database, options: { shapeOnly?: boolean } = {}): Promise<Record<string, string[]>> {
  const parts: Record<string, string[]> = {};
  for (const [part, sql] of Object.entries(CATALOG)) {
    parts[part] = (await db.query<Record<string, unknown>>(sql)).rows
      .map((row) => {
        if (!options.shapeOnly) return JSON.stringify(row);
        const { ordinal_position: _position, last_value: _last, ...shape } = row;
        return JSON.stringify(shape);
      })
      .sort();
  }
  return parts;
}
