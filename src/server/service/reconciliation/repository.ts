/**
 * The SQL of `deposit_sweeps`, `reconciliation_runs` and `reconciliation_mismatches`: nothing else in
 * the service reads or writes them. Every statement stands alone (no transaction spans a node call).
 */
import type { AssetId } from '../../../core/money.js';
import type { Queryable } from '../../db/index.js';

// ---------------------------------------------------------------------------------------------
// deposit_sweeps

/** A token transfer out of a deposit address that `paylink sweep` signed, before it is broadcast. */
export interface SweepTransfer {
  blockchainId: string;
  txHash: string;
  depositIndex: number;
  address: string;
  assetId: AssetId;
  token: string;
  /** Exact decimal string with all of the token's digits. */
  amount: string;
}

/** Records a sweep's transfer before it is broadcast; a second record of the same hash changes nothing. */
export async function recordSweepTransfer(db: Queryable, transfer: SweepTransfer, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO deposit_sweeps (blockchain_id, tx_hash, deposit_index, address, asset_id, token_address, amount, status, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'sent', $8, $8) ON CONFLICT (blockchain_id, tx_hash) DO NOTHING`,
    [
      transfer.blockchainId,
      transfer.txHash.toLowerCase(),
      transfer.depositIndex,
      transfer.address.toLowerCase(),
      transfer.assetId,
      transfer.token.toLowerCase(),
      transfer.amount,
      now,
    ],
  );
}

/** What became of a recorded sweep transfer: mined (with its block), or never to be mined. */
export type SweepOutcome = { status: 'success' | 'reverted'; blockNumber: number } | { status: 'dropped' };

/** Settles a recorded sweep transfer that is still `sent`; a settled one keeps its outcome. */
export async function settleSweepTransfer(db: Queryable, blockchainId: string, txHash: string, outcome: SweepOutcome, now: Date): Promise<void> {
  await db.query(`UPDATE deposit_sweeps SET status = $3, block_number = $4, updated_at = $5 WHERE blockchain_id = $1 AND tx_hash = $2 AND status = 'sent'`, [
    blockchainId,
    txHash.toLowerCase(),
    outcome.status,
    outcome.status === 'dropped' ? null : outcome.blockNumber,
    now,
  ]);
}

/** `blockchainId`'s sweep transfers whose outcome is not known yet (hash and when recorded), oldest first. */
export async function unsettledSweeps(db: Queryable, blockchainId: string, limit = 1_000): Promise<Array<{ txHash: string; createdAt: Date }>> {
  const { rows } = await db.query<{ tx_hash: string; created_at: Date }>(
    `SELECT tx_hash, created_at FROM deposit_sweeps WHERE blockchain_id = $1 AND status = 'sent' ORDER BY created_at LIMIT ${limit}`,
    [blockchainId],
  );
  return rows.map((row) => ({ txHash: row.tx_hash, createdAt: row.created_at }));
}

/** Per address of `addresses` (lowercase) and token: what successful sweeps moved out of it on `blockchainId` in blocks up to `block`. */
export async function sweptUpTo(db: Queryable, blockchainId: string, block: number, addresses: readonly string[]): Promise<Map<string, string>> {
  const { rows } = await db.query<{ address: string; token: string; total: string }>(
    `SELECT address, token_address AS token, sum(amount)::text AS total FROM deposit_sweeps
     WHERE blockchain_id = $1 AND status = 'success' AND block_number <= $2 AND address = ANY($3::text[])
     GROUP BY address, token_address`,
    [blockchainId, block, addresses],
  );
  return new Map(rows.map((row) => [`${row.address}:${row.token}`, row.total]));
}

/** The successful sweeps of `token` out of `address` on `blockchainId`: block and amount, oldest first. */
export async function sweptTransfers(
  db: Queryable,
  blockchainId: string,
  address: string,
  token: string,
): Promise<Array<{ txHash: string; blockNumber: number; amount: string }>> {
  const { rows } = await db.query<{ tx_hash: string; block_number: string; amount: string }>(
    `SELECT tx_hash, block_number::text AS block_number, amount::text AS amount FROM deposit_sweeps
     WHERE blockchain_id = $1 AND address = $2 AND token_address = $3 AND status = 'success' ORDER BY block_number`,
    [blockchainId, address.toLowerCase(), token.toLowerCase()],
  );
  return rows.map((row) => ({ txHash: row.tx_hash, blockNumber: Number(row.block_number), amount: row.amount }));
}

// ---------------------------------------------------------------------------------------------
// reconciliation_runs

/** Where the last completed run of a network stood. */
export interface LastRun {
  /** The final block it read balances at. */
  block: number;
  /** When it read the books: a session created before was reconciled at `block`. */
  startedAt: Date;
}

/**
 * Claims the run of `blockchainId` for `leaseMs`: when no live claim holds it and, with `dueOnly`,
 * its next run is due (a network seen for the first time is due after one `intervalMs`). One statement,
 * so of many instances one gets it. Resolves with the last completed run (or null) when claimed,
 * undefined when not.
 */
export async function claimRun(
  db: Queryable,
  blockchainId: string,
  options: { now: Date; intervalMs: number; leaseMs: number; dueOnly: boolean },
): Promise<LastRun | null | undefined> {
  const { now, intervalMs, leaseMs, dueOnly } = options;
  await db.query(`INSERT INTO reconciliation_runs (blockchain_id, next_run_at, updated_at) VALUES ($1, $2, $3) ON CONFLICT (blockchain_id) DO NOTHING`, [
    blockchainId,
    new Date(now.getTime() + intervalMs),
    now,
  ]);
  const { rows } = await db.query<{ last_block: string | null; last_started_at: Date | null }>(
    `UPDATE reconciliation_runs SET claimed_until = $2, next_run_at = $3, updated_at = $4
     WHERE blockchain_id = $1 AND (claimed_until IS NULL OR claimed_until < $4) AND (NOT $5 OR next_run_at <= $4)
     RETURNING last_block::text AS last_block, last_started_at`,
    [blockchainId, new Date(now.getTime() + leaseMs), new Date(now.getTime() + intervalMs), now, dueOnly],
  );
  const row = rows[0];
  if (!row) return undefined;
  return row.last_block === null || row.last_started_at === null ? null : { block: Number(row.last_block), startedAt: row.last_started_at };
}

/** Ends a claimed run: completed (what it read, and how many addresses and mismatches), or given up (`finished` null: the claim is only released). */
export async function releaseRun(
  db: Queryable,
  blockchainId: string,
  finished: { block: number; startedAt: Date; addresses: number; mismatches: number } | null,
  now: Date,
): Promise<void> {
  if (!finished) {
    await db.query('UPDATE reconciliation_runs SET claimed_until = NULL, updated_at = $2 WHERE blockchain_id = $1', [blockchainId, now]);
    return;
  }
  await db.query(
    `UPDATE reconciliation_runs SET claimed_until = NULL, last_block = $2, last_started_at = $3, last_finished_at = $4, last_addresses = $5, last_mismatches = $6, updated_at = $4
     WHERE blockchain_id = $1`,
    [blockchainId, finished.block, finished.startedAt, now, finished.addresses, finished.mismatches],
  );
}

// ---------------------------------------------------------------------------------------------
// reconciliation_mismatches

/** A deposit address whose balance the books do not explain. */
export interface MismatchRecord {
  blockchainId: string;
  /** Lowercase. */
  address: string;
  sessionId: string;
  assetId: AssetId;
  expected: string;
  actual: string;
  block: number;
  tracedBlock: number | null;
  reason: string;
  raisedAt: Date;
}

interface MismatchRow {
  blockchain_id: string;
  address: string;
  session_id: string;
  asset_id: AssetId;
  expected: string;
  actual: string;
  block: string;
  traced_block: string | null;
  reason: string;
  raised_at: Date;
}

const MISMATCH_COLUMNS =
  'blockchain_id, address, session_id, asset_id, expected::text AS expected, actual::text AS actual, block::text AS block, traced_block::text AS traced_block, reason, raised_at';

const toMismatch = (row: MismatchRow): MismatchRecord => ({
  blockchainId: row.blockchain_id,
  address: row.address,
  sessionId: row.session_id,
  assetId: row.asset_id,
  expected: row.expected,
  actual: row.actual,
  block: Number(row.block),
  tracedBlock: row.traced_block === null ? null : Number(row.traced_block),
  reason: row.reason,
  raisedAt: row.raised_at,
});

/** The mismatches that hold on `blockchainId`. */
export async function listMismatches(db: Queryable, blockchainId: string): Promise<MismatchRecord[]> {
  const { rows } = await db.query<MismatchRow>(
    `SELECT ${MISMATCH_COLUMNS} FROM reconciliation_mismatches WHERE blockchain_id = $1 ORDER BY raised_at, address`,
    [blockchainId],
  );
  return rows.map(toMismatch);
}

/**
 * Raises the mismatch of `mismatch.address`, or refreshes it while it holds. Resolves with the row as it
 * was before (undefined when this raises it: the caller announces it then, once).
 */
export async function upsertMismatch(db: Queryable, mismatch: Omit<MismatchRecord, 'raisedAt'>, now: Date): Promise<MismatchRecord | undefined> {
  const { rows: before } = await db.query<MismatchRow>(
    `SELECT ${MISMATCH_COLUMNS} FROM reconciliation_mismatches WHERE blockchain_id = $1 AND address = $2 FOR UPDATE`,
    [mismatch.blockchainId, mismatch.address],
  );
  await db.query(
    `INSERT INTO reconciliation_mismatches (blockchain_id, address, session_id, asset_id, expected, actual, block, traced_block, reason, raised_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10)
     ON CONFLICT (blockchain_id, address) DO UPDATE SET expected = EXCLUDED.expected, actual = EXCLUDED.actual, block = EXCLUDED.block,
       traced_block = EXCLUDED.traced_block, reason = EXCLUDED.reason, updated_at = EXCLUDED.updated_at`,
    [
      mismatch.blockchainId,
      mismatch.address,
      mismatch.sessionId,
      mismatch.assetId,
      mismatch.expected,
      mismatch.actual,
      mismatch.block,
      mismatch.tracedBlock,
      mismatch.reason,
      now,
    ],
  );
  return before[0] && toMismatch(before[0]);
}

/** Deletes the mismatches of `blockchainId` whose addresses are not in `holding` (lowercase); resolves with those deleted. */
export async function clearMismatchesExcept(db: Queryable, blockchainId: string, holding: readonly string[]): Promise<MismatchRecord[]> {
  const { rows } = await db.query<MismatchRow>(
    `DELETE FROM reconciliation_mismatches WHERE blockchain_id = $1 AND NOT (address = ANY($2::text[])) RETURNING ${MISMATCH_COLUMNS}`,
    [blockchainId, holding],
  );
  return rows.map(toMismatch);
}
