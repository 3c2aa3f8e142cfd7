/**
 * The tests' PGlite databases are copies of one migrated dump (test/support/pglite-template.ts), not
 * each migrated from nothing. A copy must be the database `openDatabase()` makes from nothing: the same
 * tables, columns, defaults, constraints, indexes, sequences, functions and triggers, the same rows,
 * and a sequence that starts where a fresh one does.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../../src/server/db/index.js';
import { openPgliteCopy } from '../../support/pglite-template.js';
import { CATALOG, describeSchema } from '../../support/schema.js';

/** Every row of every table but the migrations' log (whose times differ), as sorted text. */
async function contents(db: Database): Promise<Record<string, string[]>> {
  const { rows } = await db.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_migrations'");
  const tables: Record<string, string[]> = {};
  for (const { name } of rows) tables[name] = (await db.query(`SELECT * FROM "${name}"`)).rows.map((row) => JSON.stringify(row)).sort();
  return tables;
}

describe('a PGlite database copied from the migrated template', () => {
  let fresh: Database;
  let copy: Database;
  before(async () => {
    [fresh, copy] = [await openDatabase(), await openPgliteCopy()];
  });
  after(async () => {
    await fresh?.close();
    await copy?.close();
  });

  it('has the schema of a database migrated from nothing, every migration recorded', async () => {
    const [expected, actual] = [await describeSchema(fresh), await describeSchema(copy)];
    assert.ok(expected.columns!.length > 50 && expected.migrations!.length > 0, 'the catalog queries see the schema');
    assert.deepEqual(actual, expected);
  });

  it('holds the same rows (none but what the migrations insert)', async () => {
    assert.deepEqual(await contents(copy), await contents(fresh));
  });

  it('hands out the same first deposit index as a fresh database', async () => {
    const next = "SELECT nextval('deposit_index_seq')::text AS n";
    assert.deepEqual((await copy.query(next)).rows, (await fresh.query(next)).rows);
  });

  it('is a database of its own: what one copy writes, another copy does not see', async () => {
    const other = await openPgliteCopy();
    try {
      await other.query('CREATE TABLE only_in_one_copy (id int)');
      const seen = "SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_one_copy'";
      assert.deepEqual((await other.query(seen)).rows, [{ n: 1 }]);
      assert.deepEqual((await copy.query(seen)).rows, [{ n: 0 }]);
    } finally {
      await other.close();
    }
  });

  it('opens in a new data directory on disk, and reopens from it without the template', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'paylink-template-'));
    try {
      const onDisk = await openPgliteCopy(dir);
      await onDisk.query('CREATE TABLE written_on_disk (id int)');
      await onDisk.close();
      const reopened = await openDatabase({ dataDir: dir });
      try {
        const tables = await reopened.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'written_on_disk'");
        assert.deepEqual(tables.rows, [{ n: 1 }]);
        const migrations = async (db: Database) => (await db.query(CATALOG.migrations!)).rows;
        assert.deepEqual(await migrations(reopened), await migrations(fresh));
      } finally {
        await reopened.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
