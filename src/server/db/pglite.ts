/**
 * The embedded engine: PGlite in this process, on disk (a data directory, locked against a second
 * process by `data-dir-lock.ts`) or in memory. PGlite serializes every transaction itself, and its
 * LISTEN never loses its connection, so it needs none of the PostgreSQL side's reconnection.
 */
import { lockDataDir } from './data-dir-lock.js';
import type { Database } from './types.js';

/** Opens PGlite on `dataDir` (`memory://`, `file://…`, another PGlite URL, or a directory path). */
export async function openPglite(dataDir: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const directory = dataDir.startsWith('file://') ? dataDir.slice('file://'.length) : /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir) ? undefined : dataDir;
  const unlock = directory === undefined ? () => {} : lockDataDir(directory);
  let pglite: InstanceType<typeof PGlite>;
  try {
    pglite = await PGlite.create(dataDir === 'memory://' ? undefined : dataDir);
  } catch (error) {
    unlock();
    throw error;
  }
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
        unlock();
      }
    },
  };
}
