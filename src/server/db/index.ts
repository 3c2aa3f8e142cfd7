/**
 * One database interface over two engines: embedded PGlite (the default: one process, on disk or in
 * memory) and a PostgreSQL server through node-postgres (when a connection URL is given). The rest of
 * the service sees only `Database`, so both run the same SQL on the same code path.
 *
 * | file | concern |
 * |---|---|
 * | `types.ts` | `Database`, `Queryable`: what the service sees |
 * | `pglite.ts` | the embedded engine |
 * | `data-dir-lock.ts` | one process per PGlite data directory |
 * | `postgres.ts` | the server engine, its pool and its LISTEN connection |
 * | `migrate.ts` | the SQL files of `migrations/`, each applied once, their checksums checked |
 * | `sql-script.ts` | a script cut into statements |
 */
import { migrate } from './migrate.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';
import type { Database, SqlParam } from './types.js';

export type { Database, ListenMode, Queryable, SqlParam } from './types.js';
export { DataDirInUseError } from './data-dir-lock.js';
export { DatabaseSettingError } from './postgres.js';
export { migrate } from './migrate.js';

/** Which database `openDatabase` opens: a PostgreSQL server when `databaseUrl` is set, else PGlite on `dataDir`. */
export interface OpenDatabaseOptions {
  /** node-postgres connection string. When set, the PostgreSQL server is used. */
  databaseUrl?: string | undefined;
  /** PGlite data directory; `memory://` (the default) keeps everything in memory. */
  dataDir?: string | undefined;
  /**
   * PGlite only: a dump of a data directory (PGlite's `dumpDataDir()`) to start from instead of an
   * empty one. Starting from an already migrated copy skips PGlite's initdb, which costs seconds of CPU
   * each time: the server tests open over a hundred databases this way.
   */
  loadDataDir?: Blob | undefined;
  /** Pool size for PostgreSQL. */
  maxConnections?: number | undefined;
  /**
   * PostgreSQL: a direct connection for LISTEN when `databaseUrl` goes through a pooler in transaction
   * mode (`PAYLINK_DATABASE_LISTEN_URL`); without it, and behind such a pooler, changes are polled.
   */
  listenUrl?: string | undefined;
}

/** Opens the database named by the options and applies every pending migration. */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  const db = options.databaseUrl
    ? await openPostgres(options.databaseUrl, options.maxConnections ?? 20, { listenUrl: options.listenUrl })
    : await openPglite(options.dataDir ?? 'memory://', options.loadDataDir);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

/** The parameters of a statement being built, and the `param` that adds one and names its placeholder. */
export function statementParams(): { params: unknown[]; param: SqlParam } {
  const params: unknown[] = [];
  return {
    params,
    param: (value) => {
      params.push(value);
      return `$${params.length}`;
    },
  };
}
