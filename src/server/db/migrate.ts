/**
 * The migrator: the SQL files of `migrations/` (copied beside the compiled module by the library
 * build), applied in name order, each once, each cut into statements by `./sql-script.ts`.
 *
 * Migrations are history: a file that shipped is never edited; a change is a new file. To hold that,
 * `schema_migrations` records the SHA-256 of the text each file had when it was applied (`checksum`,
 * a column the migrator adds itself), and a database whose applied file now reads otherwise is refused
 * at start, naming the file: run as it is, the database would silently lack what the edit added.
 * Rows written before checksums were kept are filled in once (see `backfillChecksum`).
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { splitStatements } from './sql-script.js';
import type { Database, Queryable } from './types.js';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

/** The SHA-256 (hex) of a migration's text, its line endings read as `\n` (a Windows checkout's CRLF is the same text). */
export function migrationChecksum(text: string): string {
  return createHash('sha256').update(text.replace(/\r\n/g, '\n')).digest('hex');
}

/** An earlier text of a migration that was edited after it shipped, which a database may have applied. */
interface EarlierText {
  checksum: string;
  /** A query answering `{applied: true}` when the database's schema is the one this text made (read before later migrations repair it). */
  appliedIf: string;
}

const columnMissing = (table: string, column: string) =>
  `SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = '${table}' AND column_name = '${column}') AS applied`;

/**
 * The files that were edited in place after they shipped, with the texts databases may have applied
 * before the edit; `009_edited_migrations_and_secret_roll.sql` brings a database that applied any of them to the schema
 * of today's text. A database that recorded one of these checksums is accepted. (Edits that changed
 * comments only need no entry: what they applied is today's schema, and their checksums are filled in
 * as today's.)
 */
const EARLIER_TEXTS: Readonly<Record<string, readonly EarlierText[]>> = {
  // As first shipped: no integrators.link_seq, payment_links.seq nor integrator_link_counts (the list's
  // paging and totals), and an index on (integrator_id, created_at) instead.
  '001_payment_links.sql': [
    { checksum: '2eca241812b4d133b39b6db3be87532719d3be28990c20f23d6418cebd77a28f', appliedIf: columnMissing('integrators', 'link_seq') },
  ],
  // As first shipped: checkout_sessions.client_reference alone, without the orders table and a session's order_id.
  '005_orders.sql': [
    { checksum: 'f6c24050eff63706216b490bec18bb0a81baaf49d2540c45c566de5d7bfbc72c', appliedIf: columnMissing('checkout_sessions', 'order_id') },
  ],
  // As first shipped: without withdrawals.received_amount.
  '007_networks.sql': [
    { checksum: 'bc0b5cba0ded1fcaf54745c973203214e2c5fa560661fbea72441e820683b6aa', appliedIf: columnMissing('withdrawals', 'received_amount') },
  ],
};

/** A migration the database applied reads otherwise now: the service refuses to start on it. */
export class MigrationChangedError extends Error {
  override name = 'MigrationChangedError';
  constructor(readonly file: string) {
    super(
      `the migration ${file} was applied to this database with another text than the file has now: a shipped migration is never edited. ` +
        `Restore the file as it was (git log -p -- src/server/db/migrations/${file}) and put the change in a new migration`,
    );
  }
}

/**
 * Applies the SQL files of `migrations/` in name order, each once, each in its own transaction, after
 * checking that every file the database already applied still has the text it applied (else
 * `MigrationChangedError`). An advisory lock keeps two instances starting at once on one PostgreSQL
 * from racing. Resolves with the names it applied.
 */
export async function migrate(db: Database, directory = MIGRATIONS_DIR): Promise<string[]> {
  const files = (await readdir(directory)).filter((name) => name.endsWith('.sql')).sort();
  const texts = new Map(await Promise.all(files.map(async (name) => [name, await readFile(path.join(directory, name), 'utf8')] as const)));
  const applied: string[] = [];
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(72707271)');
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now(), checksum text)');
    // Databases migrated before checksums were kept: the column comes, empty, and is filled in below.
    await tx.query('ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS checksum text');
    const { rows } = await tx.query<{ name: string; checksum: string | null }>('SELECT name, checksum FROM schema_migrations');
    const done = new Set(rows.map((row) => row.name));
    for (const row of rows) {
      const text = texts.get(row.name);
      // A file this version does not have was applied by a newer one: left to it.
      if (text === undefined) continue;
      const current = migrationChecksum(text);
      const recorded = row.checksum ?? (await backfillChecksum(tx, row.name, current));
      if (recorded !== current && !EARLIER_TEXTS[row.name]?.some((earlier) => earlier.checksum === recorded)) throw new MigrationChangedError(row.name);
    }
    for (const name of files) {
      if (done.has(name)) continue;
      const text = texts.get(name)!;
      for (const statement of splitStatements(text)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (name, checksum) VALUES ($1, $2)', [name, migrationChecksum(text)]);
      applied.push(name);
    }
  });
  return applied;
}

/**
 * Records the checksum of a file that a database applied before checksums were kept. What text it
 * applied is read from its schema where the file was edited after it shipped (an earlier text's
 * schema lacks what the edit added); otherwise it is today's text, the only one that file has had
 * apart from its comments.
 */
async function backfillChecksum(tx: Queryable, name: string, current: string): Promise<string> {
  let checksum = current;
  for (const earlier of EARLIER_TEXTS[name] ?? []) {
    const { rows } = await tx.query<{ applied: boolean }>(earlier.appliedIf);
    if (rows[0]?.applied) checksum = earlier.checksum;
  }
  await tx.query('UPDATE schema_migrations SET checksum = $2 WHERE name = $1', [name, checksum]);
  return checksum;
}
