/**
 * The embedded engine: PGlite in this process, on disk (a data directory, locked against a second
 * process by `data-dir-lock.ts`) or in memory. PGlite serializes every transaction itself, and its
 * LISTEN never loses its connection, so it needs none of the PostgreSQL side's reconnection.
 */
import type { PGlite } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.js';
import type { Database } from './types.js';

/**
 * Opens PGlite on `dataDir` (`memory://`, `file://…`, another PGlite URL, or a directory path), empty
 * or, given `loadDataDir`, as a copy of that dump of a data directory (PGlite's `dumpDataDir()`).
 */
export async function openPglite(dataDir: string, loadDataDir?: Blob): Promise<Database> {
  const { PGlite: Engine } = await import('@electric-sql/pglite');
  const directory = dataDir.startsWith('file://') ? dataDir.slice('file://'.length) : /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? undefined : dataDir;
  const unlock = directory === undefined ? () => {} : lockDataDir(directory);
  let pglite: PGlite;
  try {
    pglite = await Engine.create(dataDir === 'memory://' ? undefined : dataDir, loadDataDir ? { loadDataDir } : {});
  } catch (error) {
    unlock();
    throw error;
  }
  return pgliteDatabase(pglite, unlock);
}

/** The `Database` over an open PGlite instance; `close()` closes it, then calls `onClose`. */
export function pgliteDatabase(pglite: PGlite, onClose: () => void = () => {}): Database {
  return {
    engine: 'pglite',
    query: (sql, params) => pglite.query(sql, params) as never,
    transaction: (work) => pglite.transaction((tx) => work({ query: (sql, params) => tx.query(sql, params) as never })),
    listen: async (channel, onPayload) => {
      const unsubscribe = await pglite.listen(channel, onPayload);
      return () => unsubscribe();
    },
    close: async () => {
      try {
        await pglite.close();
      } finally {
        onClose();
      }
    },
  };
}
