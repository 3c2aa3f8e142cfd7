/**
 * Migrations are history. The migrator records the checksum of each file it applies, refuses to start
 * on a database whose applied file now reads otherwise (naming it), cuts scripts into statements as
 * PostgreSQL reads them, and brings every database an earlier version made to today's schema: one
 * migrated and used by the version whose newest migration was 008 (a dump kept as a fixture), and one
 * that applied the first texts of the three files that were edited after they shipped.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { openDatabase, type Database } from '../../../src/server/db/index.js';
import { migrate, migrationChecksum, MigrationChangedError } from '../../../src/server/db/migrate.js';
import { pgliteDatabase } from '../../../src/server/db/pglite.js';
import { splitStatements } from '../../../src/server/db/sql-script.js';
import { createApiKey } from '../../../src/server/service/keys/index.js';
import { startService } from '../../../src/server/service/serve.js';
import { openMigratedPglite } from '../../support/pglite-template.js';
import { describeSchema } from '../../support/schema.js';
import { backends, call, createPostgresDatabase, standardLinkBody, type Backend } from '../../support/service.js';

const MIGRATIONS = path.resolve(import.meta.dirname, '..', '..', '..', 'src', 'server', 'db', 'migrations');
const FIXTURES = path.resolve(import.meta.dirname, '..', '..', 'fixtures', 'migrations');

describe('splitStatements', () => {
  it('cuts at each ; outside strings, quoted names, dollar-quoted bodies and comments', () => {
    const script = `-- a comment; with a semicolon
CREATE TABLE "odd;name" (note text DEFAULT 'a;b', other text DEFAULT 'it''s; fine');
/* a block; /* nested; */ still a comment; */
INSERT INTO t VALUES (E'escaped \\'; quote', $1);
CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  PERFORM 1;
  RAISE NOTICE 'inside; the body';
  RETURN NEW;
END
$body$;
DO $$ BEGIN PERFORM 1; END $$;
SELECT a$b FROM c;   -- $b is part of a name, not a quote
-- only a comment after the last statement;
`;
    assert.deepEqual(splitStatements(script), [
      `CREATE TABLE "odd;name" (note text DEFAULT 'a;b', other text DEFAULT 'it''s; fine')`,
      `INSERT INTO t VALUES (E'escaped \\'; quote', $1)`,
      `CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $body$\nBEGIN\n  PERFORM 1;\n  RAISE NOTICE 'inside; the body';\n  RETURN NEW;\nEND\n$body$`,
      'DO $$ BEGIN PERFORM 1; END $$',
      'SELECT a$b FROM c',
    ]);
  });

  it('says where a string, a comment or a body is left open instead of sending half a statement', () => {
    assert.throws(() => splitStatements("SELECT 'open;"), /Unterminated string/);
    assert.throws(() => splitStatements('SELECT 1; /* open'), /Unterminated block comment/);
    assert.throws(() => splitStatements('DO $x$ BEGIN END;'), /Unterminated dollar-quoted string \$x\$/);
  });
});

let emptyPglite: Promise<Blob> | undefined;

/** A new, empty database on `backend`, loaded with `dump` (a pg_dump script) when given. */
async function emptyDatabase(backend: Backend, dump?: string): Promise<{ open(): Promise<Database>; drop(): Promise<void> }> {
  if (backend === 'pglite') {
    const { PGlite } = await import('@electric-sql/pglite');
    // One initdb for the file (seconds of CPU); every other empty database is a copy of it.
    emptyPglite ??= PGlite.create().then(async (first) => {
      const blob = await first.dumpDataDir('none');
      await first.close();
      return blob;
    });
    const pglite = await PGlite.create({ loadDataDir: await emptyPglite });
    if (dump !== undefined) {
      await pglite.exec(dump);
      // The dump empties search_path for its own session, which is PGlite's only one.
      await pglite.exec('RESET ALL');
    }
    const db = pgliteDatabase(pglite);
    return { open: async () => db, drop: () => db.close() };
  }
  const created = await createPostgresDatabase();
  if (dump !== undefined) {
    const client = new pg.Client({ connectionString: created.url });
    await client.connect();
    await client.query(dump);
    await client.end();
  }
  const opened: Database[] = [];
  return {
    open: async () => {
      const { openPostgres } = await import('../../../src/server/db/postgres.js');
      const db = await openPostgres(created.url, 5);
      opened.push(db);
      return db;
    },
    drop: async () => {
      for (const db of opened) await db.close().catch(() => {});
      await created.drop();
    },
  };
}

/** A directory of migrations: today's files, with some replaced (name → text) and those after `upTo` left out. */
async function migrationsDir(replace: Record<string, string>, upTo?: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'paylink-migrations-'));
  for (const name of await readdir(MIGRATIONS)) {
    if (upTo !== undefined && name > upTo) continue;
    await writeFile(path.join(dir, name), replace[name] ?? (await readFile(path.join(MIGRATIONS, name), 'utf8')));
  }
  return dir;
}

const recordedChecksums = async (db: Database) =>
  Object.fromEntries(
    (await db.query<{ name: string; checksum: string }>('SELECT name, checksum FROM schema_migrations ORDER BY name')).rows.map((row) => [
      row.name,
      row.checksum,
    ]),
  );

async function currentChecksums(): Promise<Record<string, string>> {
  const names = (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
  return Object.fromEntries(await Promise.all(names.map(async (name) => [name, migrationChecksum(await readFile(path.join(MIGRATIONS, name), 'utf8'))])));
}

for (const backend of backends()) {
  describe(`migrations on ${backend}`, () => {
    /** A database today's migrations made from nothing (on PGlite: a copy of the run's migrated template, which is that). */
    let fresh: Database;
    let freshSchema: Record<string, string[]>;
    let appliedFromNothing: string[] | undefined;
    const cleanup: Array<() => Promise<unknown>> = [];
    before(async () => {
      if (backend === 'pglite') {
        fresh = await openMigratedPglite();
        cleanup.push(() => fresh.close());
      } else {
        const empty = await emptyDatabase(backend);
        cleanup.push(() => empty.drop());
        fresh = await empty.open();
        appliedFromNothing = await migrate(fresh);
      }
      freshSchema = await describeSchema(fresh, { shapeOnly: true });
    });
    after(async () => {
      for (const step of cleanup.splice(0).reverse()) await step();
    });

    it('records the checksum of every file it applies, and applies nothing twice', async () => {
      if (appliedFromNothing) assert.deepEqual(appliedFromNothing, Object.keys(await currentChecksums()));
      assert.deepEqual(await recordedChecksums(fresh), await currentChecksums());
      assert.deepEqual(await migrate(fresh), [], 'a second start applies nothing');
    });

    it('refuses a database whose applied migration now reads otherwise, naming the file, and changes nothing', async () => {
      const db = fresh;
      const original = await readFile(path.join(MIGRATIONS, '003_evm_chain.sql'), 'utf8');
      const edited = await migrationsDir({
        '003_evm_chain.sql': original.replace('CREATE TABLE', 'CREATE TABLE IF NOT EXISTS'),
        '999_later.sql': 'CREATE TABLE must_not_be_made (id int);\n',
      });
      cleanup.push(() => rm(edited, { recursive: true, force: true }));
      await assert.rejects(
        () => migrate(db, edited),
        (error: unknown) =>
          error instanceof MigrationChangedError && error.file === '003_evm_chain.sql' && /003_evm_chain\.sql was applied .* never edited/.test(error.message),
      );
      const made = await db.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'must_not_be_made'");
      assert.equal(made.rows[0]!.n, 0, 'no later migration ran');
      // The same file with Windows line endings is the same text.
      const crlf = await migrationsDir({ '003_evm_chain.sql': original.replace(/\n/g, '\r\n') });
      cleanup.push(() => rm(crlf, { recursive: true, force: true }));
      assert.deepEqual(await migrate(db, crlf), []);
    });

    it('brings a database made and used by the 008 version to the newest schema, its data intact and served', async () => {
      const dump = await readFile(path.join(FIXTURES, 'upgrade-from-008.sql'), 'utf8');
      const old = await emptyDatabase(backend, dump);
      cleanup.push(() => old.drop());
      const db = await old.open();
      const before008 = await db.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name');
      assert.equal(before008.rows.at(-1)?.name, '008_network_alerts.sql', 'the fixture stops at 008');

      const applied = await migrate(db);
      assert.ok(applied.length > 0 && applied.every((name) => name > '008'), 'the newer migrations are applied');
      assert.deepEqual(await recordedChecksums(db), await currentChecksums(), 'the files it had applied get the checksums of their texts');
      assert.deepEqual(await describeSchema(db, { shapeOnly: true }), freshSchema);

      // Its merchant, with a new key, finds everything it had and keeps working.
      const { rows } = await db.query<{ id: string }>('SELECT id FROM integrators');
      const { key } = await db.transaction((tx) => createApiKey(tx, { integratorId: rows[0]!.id }));
      const service = await startService({ db, port: 0 });
      cleanup.push(() => service.close());
      const links = await call(service.url, 'GET', '/v1/payment-link?limit=2', { key });
      assert.equal(links.status, 200);
      assert.equal(links.body.meta.totalItems, 4);
      assert.deepEqual(
        links.body.items.map((link: { title: string }) => link.title),
        ['Help the library', 'Standard 3'],
      );
      const page2 = await call(service.url, 'GET', '/v1/payment-link?limit=2&page=2', { key });
      assert.deepEqual(
        page2.body.items.map((link: { title: string }) => link.title),
        ['Standard 2', 'Standard 1'],
      );
      const added = await call(service.url, 'POST', '/v1/payment-link', { key, body: standardLinkBody({ title: 'After the upgrade' }) });
      assert.equal(added.status, 201);
      const newest = await call(service.url, 'GET', '/v1/payment-link?limit=1', { key });
      assert.equal(newest.body.items[0].title, 'After the upgrade');
      assert.equal(newest.body.meta.totalItems, 5);
      const balance = await call(service.url, 'GET', '/v1/balance', { key });
      const usdt = balance.body.items.find((item: { assetId: string }) => item.assetId === 'USDT');
      assert.ok(Number(usdt.available) > 0, 'the balance is there');
      const orders = await call(service.url, 'GET', '/v1/order', { key });
      assert.deepEqual(
        orders.body.items.map((order: { status: string }) => order.status),
        ['paid'],
      );
      const endpoints = await call(service.url, 'GET', '/v1/webhook-endpoint', { key });
      assert.equal(endpoints.body.items.length, 1);
    });

    it('brings a database that applied the first texts of 001, 005 and 007 to the same schema, its links numbered in creation order', async () => {
      const firstTexts: Record<string, string> = {};
      for (const name of await readdir(path.join(FIXTURES, 'first-texts'))) firstTexts[name] = await readFile(path.join(FIXTURES, 'first-texts', name), 'utf8');
      const then = await migrationsDir(firstTexts, '008_network_alerts.sql');
      cleanup.push(() => rm(then, { recursive: true, force: true }));
      const old = await emptyDatabase(backend);
      cleanup.push(() => old.drop());
      const db = await old.open();
      await migrate(db, then);
      // A merchant of that time: links without a seq, created out of id order.
      await db.query("INSERT INTO integrators (id, name) VALUES ('00000000-0000-4000-8000-000000000001', 'Then')");
      for (const [id, minutes] of [
        ['c', 1],
        ['a', 2],
        ['b', 3],
      ] as const) {
        await db.query(
          `INSERT INTO payment_links (id, integrator_id, user_id, slug, title, link_type, fiat_currency, created_at, is_active)
           VALUES ($1, '00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000009', $2, $3, 'Standard', '{NGN}', now() - make_interval(mins => $4), $5)`,
          [`00000000-0000-4000-8000-00000000000${id === 'a' ? 1 : id === 'b' ? 2 : 3}`, `slug-${id}`, `Link ${id}`, 10 - minutes, id !== 'b'],
        );
      }
      // As the migrator of that time left it: no checksums.
      await db.query('ALTER TABLE schema_migrations DROP COLUMN checksum');

      await migrate(db);
      assert.deepEqual(await describeSchema(db, { shapeOnly: true }), freshSchema);
      const recorded = await recordedChecksums(db);
      for (const [name, text] of Object.entries(firstTexts)) assert.equal(recorded[name], migrationChecksum(text), `${name}: the text it applied is recorded`);
      const links = await db.query<{ title: string; seq: string }>('SELECT title, seq::text FROM payment_links ORDER BY seq');
      assert.deepEqual(links.rows, [
        { title: 'Link c', seq: '1' },
        { title: 'Link a', seq: '2' },
        { title: 'Link b', seq: '3' },
      ]);
      const counts = await db.query<{ is_active: boolean; n: string }>('SELECT is_active, n::text FROM integrator_link_counts ORDER BY is_active');
      assert.deepEqual(counts.rows, [
        { is_active: false, n: '1' },
        { is_active: true, n: '2' },
      ]);
      const next = await db.query<{ link_seq: string }>('SELECT link_seq::text FROM integrators');
      assert.deepEqual(next.rows, [{ link_seq: '3' }]);
      // And a later start accepts those recorded first texts.
      assert.deepEqual(await migrate(db), []);
    });

    it(
      'opening a database whose migration was edited fails with the file named',
      { skip: backend === 'pglite' && 'the same code path; PostgreSQL opens in milliseconds' },
      async () => {
        const created = await createPostgresDatabase();
        cleanup.push(() => created.drop());
        const db = await openDatabase({ databaseUrl: created.url });
        await db.query("UPDATE schema_migrations SET checksum = repeat('0', 64) WHERE name = '002_money.sql'");
        await db.close();
        await assert.rejects(() => openDatabase({ databaseUrl: created.url }), /the migration 002_money\.sql was applied to this database with another text/);
      },
    );
  });
}
