/**
 * The migrated empty PGlite database that the tests' PGlite databases start from. PGlite's initdb costs
 * seconds of CPU for each new database, and the suites open well over a hundred; loading a dump costs
 * a fraction of that. The migrations still run from nothing once per run (when the dump is made), and
 * `openDatabase()` still checks them on every copy, applying any that is missing
 * (test/server/db/pglite-template.test.ts compares a copy with a database migrated from nothing).
 *
 * `npm run test:server` makes the dump once for the whole run and names its file in
 * PAYLINK_TEST_PGLITE_TEMPLATE; a test file run on its own makes one in its process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, type Database } from '../../src/server/db/index.js';
import { migrate } from '../../src/server/db/migrate.js';
import { pgliteDatabase } from '../../src/server/db/pglite.js';

/**
 * A dump held in memory, read back with one copy. Node's own `Blob#arrayBuffer()` reads a large blob
 * in small chunks and joins them: a quarter of a second of CPU for this dump, on every database opened.
 */
class DumpBlob extends Blob {
  readonly #bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    super([]);
    this.#bytes = bytes;
  }

  override get size(): number {
    return this.#bytes.byteLength;
  }

  /** A copy each time: every database gets bytes of its own. */
  override arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.resolve(this.#bytes.slice().buffer);
  }
}

/**
 * A new in-memory PGlite, migrated, still open, and its dump (uncompressed: loading it is what repeats,
 * not writing it).
 */
async function migratedPglite(): Promise<{ pglite: PGlite; dump: Uint8Array }> {
  const { PGlite: Engine } = await import('@electric-sql/pglite');
  const pglite = await Engine.create();
  try {
    await migrate(pgliteDatabase(pglite));
    return { pglite, dump: new Uint8Array(await (await pglite.dumpDataDir('none')).arrayBuffer()) };
  } catch (error) {
    await pglite.close();
    throw error;
  }
}

/** Writes the dump to `file`, for the test processes of one run to share. */
export async function writePgliteTemplate(file: string): Promise<void> {
  const { pglite, dump } = await migratedPglite();
  await pglite.close();
  await writeFile(file, dump);
}

let template: Promise<Blob> | undefined;

/** The dump the tests' PGlite databases start from: the run's file, else one made in this process. */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = process.env.PAYLINK_TEST_PGLITE_TEMPLATE;
    if (file) return new DumpBlob(new Uint8Array(await readFile(file)));
    const { pglite, dump } = await migratedPglite();
    await pglite.close();
    return new DumpBlob(dump);
  })();
  return template;
}

/**
 * A copy of the template: a migrated PGlite database, in memory or (given `dataDir`) in a new data
 * directory, as `openDatabase()` makes it there.
 */
export async function openPgliteCopy(dataDir?: string): Promise<Database> {
  return openDatabase({ dataDir, loadDataDir: await pgliteTemplate() });
}

/**
 * A migrated in-memory PGlite database for a test, as `openDatabase()` makes it: a copy of the template.
 * Without the run's dump, the process's first one is migrated from nothing and the dump is taken from
 * it, so that a process opening one database pays for one migration, not a migration and a copy.
 */
export async function openMigratedPglite(): Promise<Database> {
  if (template || process.env.PAYLINK_TEST_PGLITE_TEMPLATE) return openPgliteCopy();
  const first = migratedPglite();
  template = first.then(({ dump }) => new DumpBlob(dump));
  return pgliteDatabase((await first).pglite);
}

/**
 * Makes `dataDir` (new or empty) the migrated data directory the first `openDatabase({ dataDir })`
 * would make there, from the template, for tests whose services stop and start again on one directory.
 */
export async function createPgliteDataDir(dataDir: string): Promise<void> {
  await (await openPgliteCopy(dataDir)).close();
}
